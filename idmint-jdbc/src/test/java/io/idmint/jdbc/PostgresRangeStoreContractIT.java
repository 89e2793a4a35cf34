package io.idmint.jdbc;

import io.idmint.testkit.fixture.PostgresServer;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The range store contract on a real PostgreSQL server. */
class PostgresRangeStoreContractIT extends JdbcRangeStoreContract {

    @RegisterExtension
    static final PostgresServer pg = PostgresServer.shared();

    @Override
    String url() {
        return pg.url();
    }
}

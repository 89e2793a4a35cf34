package io.idmint.jdbc;

import io.idmint.testkit.fixture.PostgresServer;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The registry contract on a real PostgreSQL server. */
class PostgresRegistryContractIT extends JdbcRegistryContract {

    @RegisterExtension
    static final PostgresServer pg = PostgresServer.shared();

    @Override
    String url() {
        return pg.url();
    }
}

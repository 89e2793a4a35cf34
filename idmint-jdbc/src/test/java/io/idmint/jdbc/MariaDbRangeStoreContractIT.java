package io.idmint.jdbc;

import io.idmint.testkit.fixture.MariaDbServer;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The range store contract on a real MariaDB server (MySQL dialect, MariaDB driver). */
class MariaDbRangeStoreContractIT extends JdbcRangeStoreContract {

    @RegisterExtension
    static final MariaDbServer db = MariaDbServer.shared();

    @Override
    String url() {
        return db.url();
    }
}

package io.idmint.jdbc;

import io.idmint.testkit.fixture.MariaDbServer;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The registry contract on a real MariaDB server (MySQL dialect, MariaDB driver). */
class MariaDbRegistryContractIT extends JdbcRegistryContract {

    @RegisterExtension
    static final MariaDbServer db = MariaDbServer.shared();

    @Override
    String url() {
        return db.url();
    }
}

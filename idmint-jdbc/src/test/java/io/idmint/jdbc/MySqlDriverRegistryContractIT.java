package io.idmint.jdbc;

import io.idmint.testkit.fixture.MariaDbServer;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The registry contract through MySQL Connector/J ({@code jdbc:mysql:}), on a MariaDB server
 * (no MySQL server package is at hand): covers that driver's update counts and time-outs.
 */
class MySqlDriverRegistryContractIT extends JdbcRegistryContract {

    @RegisterExtension
    static final MariaDbServer db = MariaDbServer.shared();

    @Override
    String url() {
        return db.mysqlDriverUrl();
    }
}

package io.idmint.jdbc;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The range store contract through MySQL Connector/J ({@code jdbc:mysql:}), on a MariaDB server
 * (no MySQL server package is at hand): covers that driver's update counts and error codes.
 */
class MySqlDriverRangeStoreContractIT extends JdbcRangeStoreContract {

    private static TestDatabases.MariaDb db;

    @BeforeAll
    static void startDatabase() throws Exception {
        db = new TestDatabases.MariaDb();
    }

    @AfterAll
    static void stopDatabase() throws Exception {
        db.close();
    }

    @Override
    String url() {
        return db.mysqlDriverUrl();
    }
}

package io.idmint.jdbc;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The range store contract on a real MariaDB server (MySQL dialect, MariaDB driver). */
class MariaDbRangeStoreContractIT extends JdbcRangeStoreContract {

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
        return db.url();
    }
}

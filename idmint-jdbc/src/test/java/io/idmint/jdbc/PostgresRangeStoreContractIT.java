package io.idmint.jdbc;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The range store contract on a real PostgreSQL server. */
class PostgresRangeStoreContractIT extends JdbcRangeStoreContract {

    private static TestDatabases.Postgres pg;

    @BeforeAll
    static void startDatabase() throws Exception {
        pg = new TestDatabases.Postgres();
    }

    @AfterAll
    static void stopDatabase() throws Exception {
        pg.close();
    }

    @Override
    String url() {
        return pg.url();
    }
}

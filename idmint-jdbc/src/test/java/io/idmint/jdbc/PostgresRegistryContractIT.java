package io.idmint.jdbc;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The registry contract on a real PostgreSQL server. */
class PostgresRegistryContractIT extends JdbcRegistryContract {

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

package io.idmint.jdbc;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Leaf's table served in place on a real PostgreSQL server, beside re-enacted Leaf servers. */
class PostgresLeafAllocIT extends LeafAllocContract {

    private static TestDatabases.Postgres pg;

    @BeforeAll
    static void startDatabase() throws Exception {
        pg = new TestDatabases.Postgres();
    }

    @AfterAll
    static void stopDatabase() throws Exception {
        pg.close();
    }

    @Test
    void leafDyingMidTransaction_takesNothing_andIdmintGetsTheValues() throws Exception {
        assertLeafDyingMidTransactionTakesNothing("SELECT count(*) FROM pg_stat_activity "
                + "WHERE wait_event_type = 'Lock' AND query LIKE 'UPDATE leaf_alloc%'");
    }

    @Override
    String url() {
        return pg.url();
    }
}

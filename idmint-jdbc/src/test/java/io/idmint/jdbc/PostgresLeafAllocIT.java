package io.idmint.jdbc;

import io.idmint.testkit.fixture.PostgresServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Leaf's table served in place on a real PostgreSQL server, beside re-enacted Leaf servers. */
class PostgresLeafAllocIT extends LeafAllocContract {

    @RegisterExtension
    static final PostgresServer pg = PostgresServer.shared();

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

package io.idmint.jdbc;

import io.idmint.testkit.fixture.MariaDbServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Leaf's table served in place on a real MariaDB server, beside re-enacted Leaf servers. */
class MariaDbLeafAllocIT extends LeafAllocContract {

    @RegisterExtension
    static final MariaDbServer db = MariaDbServer.shared();

    @Test
    void leafDyingMidTransaction_takesNothing_andIdmintGetsTheValues() throws Exception {
        // Leaf's UPDATE has finished (its connection sleeps in the open transaction), so
        // another running UPDATE of leaf_alloc (with idmint's SET STATEMENT max_statement_time
        // prefix) is idmint's, waiting for the row lock.
        assertLeafDyingMidTransactionTakesNothing("SELECT count(*) FROM "
                + "information_schema.PROCESSLIST WHERE COMMAND = 'Query' "
                + "AND ID <> CONNECTION_ID() AND INFO LIKE '%UPDATE leaf_alloc%'");
    }

    @Override
    String url() {
        return db.url();
    }

    /** As Leaf's scripts/leaf_alloc.sql creates it (MySQL types, InnoDB). */
    @Override
    String leafTable() {
        return "CREATE TABLE IF NOT EXISTS leaf_alloc (biz_tag varchar(128) NOT NULL DEFAULT '', "
                + "max_id bigint(20) NOT NULL DEFAULT '1', step int(11) NOT NULL, "
                + "description varchar(256) DEFAULT NULL, update_time timestamp NOT NULL "
                + "DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP, PRIMARY KEY (biz_tag)) "
                + "ENGINE=InnoDB";
    }
}

package io.idmint.jdbc;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Leaf's table served in place on a real MariaDB server, beside re-enacted Leaf servers. */
class MariaDbLeafAllocIT extends LeafAllocContract {

    private static TestDatabases.MariaDb db;

    @BeforeAll
    static void startDatabase() throws Exception {
        db = new TestDatabases.MariaDb();
    }

    @AfterAll
    static void stopDatabase() throws Exception {
        db.close();
    }

    @Test
    void leafDyingMidTransaction_takesNothing_andIdmintGetsTheValues() throws Exception {
        assertLeafDyingMidTransactionTakesNothing();
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

package io.idmint.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import io.idmint.testkit.fixture.MariaDbServer;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.Locale;
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

    /**
     * The premise of {@code tags_compareExactly_…}: Leaf's script leaves biz_tag in the server's
     * default collation, which ignores case, so {@code WHERE biz_tag = ?} matches the other case.
     */
    @Test
    void leafsTable_matchesAnotherCase_here() throws Exception {
        leafRow(tag, 1, 1000);
        try (Connection c = DriverManager.getConnection(url());
                PreparedStatement ps = c.prepareStatement(
                        "SELECT count(*) FROM leaf_alloc WHERE biz_tag = ?")) {
            ps.setString(1, tag.toUpperCase(Locale.ROOT));
            try (ResultSet rs = ps.executeQuery()) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getInt(1)).isEqualTo(1);
            }
        }
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

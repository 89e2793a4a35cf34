package io.idmint.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idmint.segment.RangeStores;
import io.idmint.spi.RangeStore;
import io.idmint.spi.RegistryException;
import io.idmint.spi.RegistryException.Kind;
import io.idmint.testkit.fixture.H2Database;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Leaf's table served in place on H2, plus what only a table unlike Leaf's can show: NULLs, and
 * no table at all.
 */
class H2LeafAllocIT extends LeafAllocContract {

    @RegisterExtension
    static final H2Database h2 = H2Database.inMemory();

    @Override
    String url() {
        return h2.url();
    }

    @Override
    int perThread() {
        return 5_000;
    }

    @Test
    void nullMaxIdOrStep_isRefusedNamingTheRow() throws Exception {
        String url = "jdbc:h2:mem:leaf-nulls-" + tag + ";DB_CLOSE_DELAY=-1";
        try (Connection c = DriverManager.getConnection(url)) {
            c.createStatement().execute("CREATE TABLE leaf_alloc (biz_tag VARCHAR(128) PRIMARY "
                    + "KEY, max_id BIGINT, step INT, description VARCHAR(256), update_time "
                    + "TIMESTAMP)");
            c.createStatement().execute("INSERT INTO leaf_alloc (biz_tag, max_id, step) VALUES "
                    + "('nomax', NULL, 10), ('nostep', 5, NULL)");
        }
        try (RangeStore s = RangeStores.open(url + ";idmint.table=leaf_alloc", null)) {
            assertThatThrownBy(() -> s.allocate("nomax", RangeStore.TAG_STEP))
                    .isInstanceOf(RegistryException.class)
                    .hasMessageContaining("row biz_tag='nomax' has max_id null and step 10; "
                            + "neither may be NULL");
            assertThatThrownBy(() -> s.allocate("nostep", 3))
                    .hasMessageContaining("row biz_tag='nostep' has max_id 5 and step null");
            assertThatThrownBy(s::tags).isInstanceOf(RegistryException.class)
                    .hasMessageContaining("row biz_tag='nomax' has a NULL max_id or step");
        }
    }

    @Test
    void missingTable_isNamed_andNeverCreated() throws Exception {
        String url = "jdbc:h2:mem:leaf-none-" + tag + ";DB_CLOSE_DELAY=-1";
        try (RangeStore s = RangeStores.open(url + ";idmint.table=leaf_alloc", null)) {
            assertThatThrownBy(() -> s.allocate("order", RangeStore.TAG_STEP))
                    .isInstanceOf(RegistryException.class)
                    .hasMessageContaining("table leaf_alloc in jdbc:h2:mem:leaf-none-")
                    .hasMessageContaining("the table does not exist; idmint serves an existing "
                            + "Leaf table and never creates it")
                    .extracting(e -> ((RegistryException) e).kind()).isEqualTo(Kind.CORRUPT);
            assertThatThrownBy(() -> s.create("order", 1, 10))
                    .hasMessageContaining("the table does not exist");
        }
        try (Connection c = DriverManager.getConnection(url);
                ResultSet rs = c.createStatement().executeQuery("SELECT COUNT(*) FROM "
                        + "INFORMATION_SCHEMA.TABLES WHERE TABLE_SCHEMA = 'PUBLIC'")) {
            assertThat(rs.next()).isTrue();
            assertThat(rs.getInt(1)).as("tables created").isZero();
        }
    }
}

package io.idmint.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idmint.jdbc.JdbcConfig.Use;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JdbcConfigTest {

    @Test
    void parse_postgres_stripsOwnOptions_keepsDriverOnes() {
        JdbcConfig c = JdbcConfig.parse("jdbc:postgresql://db:5432/ids?user=u&idmint.timeout=3s"
                + "&password=secret&idmint.pool-size=4", Map.of());
        assertThat(c.dialect()).isEqualTo(Dialect.POSTGRESQL);
        assertThat(c.driverUrl()).isEqualTo("jdbc:postgresql://db:5432/ids?user=u&password=secret");
        assertThat(c.timeout()).isEqualTo(Duration.ofSeconds(3));
        assertThat(c.poolSize()).isEqualTo(4);
        assertThat(c.display()).isEqualTo("jdbc:postgresql://db:5432/ids");
        assertThat(c.toString()).doesNotContain("secret");
    }

    @Test
    void parse_onlyOwnOptions_leavesNoQuery() {
        JdbcConfig c = JdbcConfig.parse("jdbc:mariadb://db/ids?idmint.timeout=500ms", Map.of());
        assertThat(c.dialect()).isEqualTo(Dialect.MYSQL);
        assertThat(c.driverUrl()).isEqualTo("jdbc:mariadb://db/ids");
        assertThat(c.timeout()).isEqualTo(Duration.ofMillis(500));
    }

    @Test
    void parse_h2_usesSemicolonSettings() {
        JdbcConfig c = JdbcConfig.parse("jdbc:h2:mem:x;DB_CLOSE_DELAY=-1;idmint.pool-size=1",
                Map.of());
        assertThat(c.dialect()).isEqualTo(Dialect.H2);
        assertThat(c.driverUrl()).isEqualTo("jdbc:h2:mem:x;DB_CLOSE_DELAY=-1");
        assertThat(c.poolSize()).isEqualTo(1);
        assertThat(c.timeout()).isEqualTo(JdbcConfig.DEFAULT_TIMEOUT);
    }

    @Test
    void parse_defaults_andCredentialsFromEnvironment() {
        JdbcConfig c = JdbcConfig.parse("jdbc:mysql://db/ids", Map.of(JdbcConfig.USER_ENV, "svc",
                JdbcConfig.PASSWORD_ENV, "pw"));
        assertThat(c.poolSize()).isEqualTo(JdbcConfig.DEFAULT_POOL_SIZE);
        assertThat(c.user()).isEqualTo("svc");
        assertThat(c.password()).isEqualTo("pw");
        assertThat(c.toString()).doesNotContain("pw");
    }

    @Test
    void displayOf_dropsUserInfoAndQuery() {
        assertThat(JdbcConfig.displayOf("jdbc:mysql://u:pw@db:3306/ids?password=x"))
                .isEqualTo("jdbc:mysql://db:3306/ids");
    }

    @Test
    void urlSets_findsDriverProperty() {
        JdbcConfig c = JdbcConfig.parse("jdbc:postgresql://db/ids?socketTimeout=9", Map.of());
        assertThat(c.urlSets("socketTimeout")).isTrue();
        assertThat(c.urlSets("connectTimeout")).isFalse();
    }

    @Test
    void parse_badInput_namesThePart() {
        assertThatThrownBy(() -> JdbcConfig.parse("jdbc:oracle:thin:@db", Map.of()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("unsupported");
        assertThatThrownBy(() -> JdbcConfig.parse("jdbc:h2:mem:x;idmint.bogus=1", Map.of()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("idmint.bogus");
        assertThatThrownBy(() -> JdbcConfig.parse("jdbc:h2:mem:x;idmint.timeout=100ms", Map.of()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("100ms");
        assertThatThrownBy(() -> JdbcConfig.parse("jdbc:h2:mem:x;idmint.timeout=2h", Map.of()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("2h");
        assertThatThrownBy(() -> JdbcConfig.parse("jdbc:h2:mem:x;idmint.pool-size=0", Map.of()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("pool-size");
        assertThatThrownBy(() -> JdbcConfig.parse(" ", Map.of()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("empty");
    }

    @Test
    void schemaScripts_shipForEveryDialect() {
        for (Dialect d : Dialect.values()) {
            assertThat(d.schemaStatements(Use.REGISTRY)).hasSize(3)
                    .allSatisfy(s -> assertThat(s).startsWith("CREATE TABLE IF NOT EXISTS"));
            assertThat(d.schemaStatements(Use.SEGMENTS)).hasSize(2)
                    .satisfies(s -> assertThat(s.get(0)).startsWith("CREATE TABLE IF NOT EXISTS "
                            + "idmint_segment"))
                    .satisfies(s -> assertThat(s.get(1)).startsWith("CREATE TABLE IF NOT EXISTS "
                            + "idmint_serial"));
        }
    }

    @Test
    void parse_h2ImplicitlyRelativePath_isResolvedUnderTheDataDirectory() {
        Path dir = Path.of("/var/lib/idmint");
        assertThat(JdbcRangeStores.config(JdbcRangeStores.DEFAULT_URL, Map.of(), dir).driverUrl())
                .isEqualTo("jdbc:h2:file:/var/lib/idmint/segments;WRITE_DELAY=0");
        assertThat(JdbcRangeStores.config("jdbc:h2:sub/ids;idmint.timeout=3s;MODE=MySQL",
                Map.of(), dir).driverUrl())
                .isEqualTo("jdbc:h2:/var/lib/idmint/sub/ids;MODE=MySQL;WRITE_DELAY=0");
        assertThat(JdbcConfig.parse(Use.REGISTRY, "jdbc:h2:file:registry", Map.of(), dir)
                .display()).isEqualTo("jdbc:h2:file:/var/lib/idmint/registry");
    }

    @Test
    void parse_h2ExplicitPathsAndOtherKinds_keepH2sMeaning() {
        Path dir = Path.of("/var/lib/idmint");
        for (String url : new String[] {"jdbc:h2:./ids", "jdbc:h2:file:/abs/ids",
            "jdbc:h2:~/ids", "jdbc:h2:../up/ids"}) {
            assertThat(JdbcRangeStores.config(url, Map.of(), dir).driverUrl())
                    .isEqualTo(url + ";WRITE_DELAY=0");
        }
        // In memory or on an H2 server: no local file whose writes need forcing.
        for (String url : new String[] {"jdbc:h2:mem:x", "jdbc:h2:tcp://db:9092/ids"}) {
            assertThat(JdbcRangeStores.config(url, Map.of(), dir).driverUrl()).isEqualTo(url);
        }
        assertThat(JdbcRangeStores.config("jdbc:h2:./ids;write_delay=0", Map.of(), dir)
                .driverUrl()).isEqualTo("jdbc:h2:./ids;write_delay=0");
    }

    @Test
    void parse_namespace_forSegmentStoresOnly() {
        assertThat(JdbcRangeStores.config("jdbc:postgresql://db/ids", Map.of(), null).namespace())
                .isEqualTo("default");
        JdbcConfig c = JdbcRangeStores.config("jdbc:postgresql://db/ids?idmint.namespace=shop-1"
                + "&user=u", Map.of(), null);
        assertThat(c.namespace()).isEqualTo("shop-1");
        assertThat(c.driverUrl()).isEqualTo("jdbc:postgresql://db/ids?user=u");
        assertThat(JdbcConfig.parse("jdbc:postgresql://db/ids", Map.of()).namespace()).isNull();
        assertThatThrownBy(() -> JdbcConfig.parse("jdbc:postgresql://db/ids?idmint.namespace=x",
                Map.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("jdbc registry").hasMessageContaining("idmint.namespace");
    }

    @Test
    void parse_table_leafAllocIsLeafsTable_withoutNamespaceOrSchema() {
        JdbcConfig c = JdbcRangeStores.config("jdbc:mysql://db/leaf?idmint.table=leaf_alloc"
                + "&user=u", Map.of(), null);
        assertThat(c.use()).isEqualTo(JdbcConfig.Use.LEAF_ALLOC);
        assertThat(c.use().script()).isNull();
        assertThat(c.namespace()).isNull();
        assertThat(c.driverUrl()).isEqualTo("jdbc:mysql://db/leaf?user=u");
        assertThat(JdbcRangeStores.config("jdbc:h2:mem:x;idmint.table=idmint_segment", Map.of(),
                null).use()).isEqualTo(JdbcConfig.Use.SEGMENTS);
        assertThatThrownBy(() -> JdbcRangeStores.config("jdbc:h2:mem:x;idmint.table=LEAF_ALLOC",
                Map.of(), null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("jdbc segment store: idmint.table 'LEAF_ALLOC' must be idmint_segment "
                        + "(idmint's own table, created on first use) or leaf_alloc (an existing "
                        + "Leaf table, see docs/migration.md)");
        assertThatThrownBy(() -> JdbcConfig.parse("jdbc:mysql://db/ids?idmint.table=leaf_alloc",
                Map.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("jdbc registry").hasMessageContaining("idmint.table");
    }

    @Test
    void parse_segmentStoreBadInput_namesThePart() {
        assertThatThrownBy(() -> JdbcRangeStores.config("jdbc:h2:mem:x;idmint.namespace=a/b",
                Map.of(), null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("jdbc segment store").hasMessageContaining("'a/b'");
        assertThatThrownBy(() -> JdbcRangeStores.config("jdbc:h2:file:segments", Map.of(), null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'segments'").hasMessageContaining("data directory");
        assertThatThrownBy(() -> JdbcRangeStores.config("jdbc:h2:./s;WRITE_DELAY=500", Map.of(),
                null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("WRITE_DELAY=500");
        assertThatThrownBy(() -> JdbcRangeStores.config("jdbc:h2:file:", Map.of(), Path.of("d")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("names no database");
        assertThatThrownBy(() -> JdbcRangeStores.config("jdbc:mysql://db/ids?idmint.tag=x",
                Map.of(), null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'idmint.tag'").hasMessageContaining("idmint.namespace");
        assertThatThrownBy(() -> JdbcRangeStores.open("redis://db/ns", null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("unsupported database");
    }

    @Test
    void ofDataSource_readsTheDatabaseFromItsUrl_andRefusesWhatCouldLoseACommit() {
        assertThat(JdbcConfig.ofDataSource("jdbc:postgresql://db:5432/app?user=u&password=p",
                "orders")).satisfies(c -> {
                    assertThat(c.dialect()).isEqualTo(Dialect.POSTGRESQL);
                    assertThat(c.namespace()).isEqualTo("orders");
                    assertThat(c.display()).isEqualTo("jdbc:postgresql://db:5432/app");
                });
        assertThat(JdbcConfig.ofDataSource("jdbc:h2:mem:app", "default").dialect())
                .isEqualTo(Dialect.H2);
        assertThat(JdbcConfig.ofDataSource("jdbc:h2:/data/app;WRITE_DELAY=0", "default")
                .dialect()).isEqualTo(Dialect.H2);
        assertThatThrownBy(() -> JdbcConfig.ofDataSource("jdbc:h2:/data/app", "default"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("jdbc segment store on the application's DataSource "
                        + "'jdbc:h2:/data/app': an H2 file database writes commits to its file "
                        + "only every 500 ms, so a crash could hand out a segment value twice; "
                        + "add ;WRITE_DELAY=0 to its URL, or set idmint.segment.store");
        assertThatThrownBy(() -> JdbcConfig.ofDataSource("jdbc:sqlserver://db", "default"))
                .hasMessageContaining("unsupported database");
        assertThatThrownBy(() -> JdbcConfig.ofDataSource("jdbc:h2:mem:app", "no spaces"))
                .hasMessageContaining("idmint.namespace 'no spaces' must be");
    }
}

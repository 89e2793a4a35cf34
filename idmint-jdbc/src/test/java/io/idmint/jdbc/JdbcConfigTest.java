package io.idmint.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
            assertThat(d.schemaStatements()).hasSize(3)
                    .allSatisfy(s -> assertThat(s).startsWith("CREATE TABLE IF NOT EXISTS"));
        }
        assertThat(JdbcRegistries.schemaScript("jdbc:postgresql://db/ids"))
                .contains("idmint_worker");
    }
}

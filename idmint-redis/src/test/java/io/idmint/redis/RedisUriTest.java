package io.idmint.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class RedisUriTest {

    @Test
    void parse_everything() {
        RedisUri u = RedisUri.parse("rediss://ids:p%40ss%3Aw%2Frd@redis-1.example:6380/orders"
                + "?timeout=500ms&persistence=unchecked");
        assertThat(u.tls()).isTrue();
        assertThat(u.user()).isEqualTo("ids");
        assertThat(u.password()).isEqualTo("p@ss:w/rd");
        assertThat(u.host()).isEqualTo("redis-1.example");
        assertThat(u.port()).isEqualTo(6380);
        assertThat(u.namespace()).isEqualTo("orders");
        assertThat(u.timeout()).isEqualTo(Duration.ofMillis(500));
        assertThat(u.checkPersistence()).isFalse();
        assertThat(u.toString()).isEqualTo("rediss://redis-1.example:6380/orders")
                .doesNotContain("p@ss");
    }

    @Test
    void parse_defaults() {
        RedisUri u = RedisUri.parse("REDIS://10.0.0.1");
        assertThat(u.tls()).isFalse();
        assertThat(u.user()).isNull();
        assertThat(u.password()).isNull();
        assertThat(u.port()).isEqualTo(6379);
        assertThat(u.namespace()).isEqualTo("idmint");
        assertThat(u.timeout()).isEqualTo(Duration.ofSeconds(2));
        assertThat(u.checkPersistence()).isTrue();
        assertThat(RedisUri.parse("redis://h/").namespace()).isEqualTo("idmint");
        assertThat(RedisUri.parse("redis://h/a.b-c_1/").namespace()).isEqualTo("a.b-c_1");
        assertThat(RedisUri.parse("redis://:secret@h").user()).isNull();
        assertThat(RedisUri.parse("redis://:secret@h").password()).isEqualTo("secret");
        assertThat(RedisUri.parse("redis://h?timeout=1m").timeout())
                .isEqualTo(Duration.ofMinutes(1));
        RedisUri checked = RedisUri.parse("redis://h?persistence=checked&timeout=3s");
        assertThat(checked.checkPersistence()).isTrue();
        assertThat(checked.timeout()).isEqualTo(Duration.ofSeconds(3));
        assertThat(RedisUri.parse("redis://h?persistence=UNCHECKED").checkPersistence())
                .isFalse();
    }

    @Test
    void parse_ipv6_keepsTheAddressWithoutBrackets() {
        RedisUri u = RedisUri.parse("redis://[::1]:7000/x");
        assertThat(u.host()).isEqualTo("::1");
        assertThat(u.port()).isEqualTo(7000);
        assertThat(u.toString()).isEqualTo("redis://[::1]:7000/x");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "etcd://h:1/x|must start with redis:// or rediss://",
        "redis:/x|names no host",
        "redis://h_1/x|names no host",
        "redis://user@h/x|user information without a password",
        "redis://h:99999/x|port 99999",
        "redis://h/a/b|bad namespace 'a/b'",
        "redis://h/a:b|bad namespace 'a:b'",
        "redis://h/0|reads like a Redis database number",
        "redis://h/x?timeout=5|timeout '5'",
        "redis://h/x?timeout=50ms|between 100ms and 1m",
        "redis://h/x?timeout=2s&timeout=3s|sets timeout twice",
        "redis://h/x?db=1|unknown option 'db'; known: timeout, persistence",
        "redis://h/x?persistence=off|persistence 'off'; write checked (the default) or unchecked",
        "redis://h/x?persistence|persistence ''",
        "redis://h/x?persistence=checked&persistence=unchecked|sets persistence twice",
        "redis://h/x#frag|fragment '#frag'",
        "redis://h x/y|malformed",
    })
    void parse_bad_namesTheBadPart(String uri, String message) {
        assertThatThrownBy(() -> RedisUri.parse(uri))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(uri).hasMessageContaining(message);
    }

    @Test
    void parse_bad_neverRepeatsThePassword() {
        assertThatThrownBy(() -> RedisUri.parse("redis://u:hunter2@h/x?timeout=soon"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("redis://u:***@h/x?timeout=soon")
                .hasMessageNotContaining("hunter2");
        assertThatThrownBy(() -> RedisUri.parse("redis://:hunter2@h/0"))
                .hasMessageNotContaining("hunter2");
    }
}

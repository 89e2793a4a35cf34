package io.idmint.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idmint.WorkerRegistries;
import io.idmint.spi.WorkerRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class EtcdUriTest {

    @Test
    void parse_full() {
        EtcdUri u = EtcdUri.parse("etcd://10.0.0.1:2379,etcd-2.example:2479,[::1]:2579/ids/prod"
                + "?timeout=500ms");
        assertThat(u.endpoints()).containsExactly("http://10.0.0.1:2379",
                "http://etcd-2.example:2479", "http://[::1]:2579");
        assertThat(u.prefix()).isEqualTo("/ids/prod");
        assertThat(u.timeout()).isEqualTo(Duration.ofMillis(500));
    }

    @Test
    void parse_defaults() {
        EtcdUri u = EtcdUri.parse("ETCD://localhost");
        assertThat(u.endpoints()).isEqualTo(List.of("http://localhost:2379"));
        assertThat(u.prefix()).isEqualTo("/idmint");
        assertThat(u.timeout()).isEqualTo(Duration.ofSeconds(2));
        assertThat(EtcdUri.parse("etcd://h:1/").prefix()).isEqualTo("/idmint");
        assertThat(EtcdUri.parse("etcd://h:1/p/?timeout=1m").prefix()).isEqualTo("/p");
        assertThat(EtcdUri.parse("etcd://h:1/p/?timeout=1m").timeout())
                .isEqualTo(Duration.ofMinutes(1));
    }

    @Test
    void parse_bad_namesThePart() {
        assertBad("zk://h:2181/x", "must start with etcd://");
        assertBad("etcd:///idmint", "names no host");
        assertBad("etcd://h:2379,,h2/x", "bad host ''");
        assertBad("etcd://h:99999/x", "bad port in 'h:99999'");
        assertBad("etcd://h:x/x", "bad host 'h:x'");
        assertBad("etcd://h/a//b", "bad key prefix '/a//b'");
        assertBad("etcd://h/a b", "bad key prefix");
        assertBad("etcd://h/x?timeout=2", "has timeout '2'");
        assertBad("etcd://h/x?timeout=10ms", "between 100ms and 1m");
        assertBad("etcd://h/x?timeout=2m", "between 100ms and 1m");
        assertBad("etcd://h/x?timeout=1s&timeout=2s", "sets timeout twice");
        assertBad("etcd://h/x?ttl=3s", "unknown option 'ttl'");
    }

    @Test
    void provider_isFoundByScheme_andConnectsLazily() {
        // Nothing listens on port 1: opening must not fail, only calls would.
        try (WorkerRegistry r = WorkerRegistries.open("etcd://127.0.0.1:1/x", Path.of("."))) {
            assertThat(r).isInstanceOf(EtcdRegistry.class);
        }
        assertThatThrownBy(() -> WorkerRegistries.open("etcd://h/x?bad=1", Path.of(".")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'bad'");
    }

    private static void assertBad(String uri, String message) {
        assertThatThrownBy(() -> EtcdUri.parse(uri)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(uri).hasMessageContaining(message);
    }
}

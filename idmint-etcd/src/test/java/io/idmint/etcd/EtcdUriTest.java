package io.idmint.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idmint.WorkerRegistries;
import io.idmint.spi.WorkerRegistry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

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
        assertBad("zk://h:2181/x", "must start with etcd:// or etcds://");
        assertBad("etcd:///idmint", "names no host");
        assertBad("etcd://h:2379,,h2/x", "bad host ''");
        assertBad("etcd://h:99999/x", "bad port in 'h:99999'");
        assertBad("etcd://h:x/x", "bad host 'h:x'");
        assertBad("etcd://h/a//b", "bad key prefix '/a//b'");
        assertBad("etcd://h/a b", "bad key prefix");
        assertBad("etcd://h/x?timeout=2", "has timeout '2'");
        assertBad("etcd://h/x?timeout=10ms", "between 100ms and 1m");
        assertBad("etcd://h/x?timeout=2m", "between 100ms and 1m");
        assertBad("etcd://h/x?timeout=1s&timeout=2s", "option 'timeout' is given twice");
        assertBad("etcd://h/x?ttl=3s", "unknown option 'ttl'");
        assertBad("etcd://h/x?ca-file=/ca.pem", "need TLS; write etcds://");
        assertBad("etcds://h/x?cert-file=/c.pem", "needs both cert-file and key-file");
        assertBad("etcd://h/x?user=u", "without password-file= or password-env=");
        assertBad("etcd://h/x?password-file=/p", "sets a password without user=");
        assertBad("etcd://h/x?user=u&password-file=/p&password-env=P", "keep one");
        assertBad("etcd://h/x?user=u&password-env=1P",
                "password-env '1P' is not an environment variable name");
        assertBad("etcd://h/x?user=a b&password-env=P", "bad user 'a b'");
        assertBad("etcd://h/x?user=", "option 'user' has no value");
    }

    @Test
    void parse_tlsAndUser() {
        EtcdUri u = EtcdUri.parse("etcds://a:2379,b/ids?ca-file=/etc/ca.pem&cert-file=/c.pem"
                + "&key-file=/k.pem&user=idmint&password-file=/run/secrets/etcd");
        assertThat(u.endpoints()).containsExactly("https://a:2379", "https://b:2379");
        assertThat(u.tls()).isTrue();
        assertThat(u.security().caFile()).hasToString("/etc/ca.pem");
        assertThat(u.security().certFile()).hasToString("/c.pem");
        assertThat(u.security().keyFile()).hasToString("/k.pem");
        assertThat(u.security().user()).isEqualTo("idmint");
        assertThat(u.security().passwordFile()).hasToString("/run/secrets/etcd");
        assertThat(u).hasToString("etcds://a:2379,b:2379/ids (user idmint)");
        assertThat(EtcdUri.parse("etcd://h?user=u&password-env=ETCD_PW").security()
                .passwordEnv()).isEqualTo("ETCD_PW");
    }

    @Test
    void parse_passwordInTheUri_isRefusedWithoutQuotingIt() {
        assertThatThrownBy(() -> EtcdUri.parse("etcd://u:hunter2@h/x"))
                .hasMessageContaining("etcd://u:***@h/x").hasMessageContaining("password-file=")
                .hasMessageNotContaining("hunter2");
        assertThatThrownBy(() -> EtcdUri.parse("etcd://h/x?user=u&password=hunter2"))
                .hasMessageContaining("password=***").hasMessageContaining("password-env=")
                .hasMessageNotContaining("hunter2");
    }

    @Test
    void password_isReadFromTheFile_andMissingOrEmptyIsNamed(@TempDir Path dir)
            throws Exception {
        Path file = Files.writeString(dir.resolve("pw"), "s3cret\n");
        assertThat(EtcdUri.parse("etcd://h?user=u&password-file=" + file).password())
                .isEqualTo("s3cret".getBytes(StandardCharsets.UTF_8));
        Files.writeString(file, "\n");
        assertThatThrownBy(() -> EtcdUri.parse("etcd://h?user=u&password-file=" + file)
                .password()).hasMessageContaining("password-file '" + file + "' is empty");
        assertThatThrownBy(() -> EtcdUri.parse("etcd://h?user=u&password-file=/nope/pw")
                .password()).hasMessageContaining("cannot read password-file '/nope/pw'");
        assertThatThrownBy(() -> EtcdUri.parse("etcd://h?user=u&password-env=IDMINT_UNSET_2")
                .password()).hasMessageContaining("IDMINT_UNSET_2 (password-env) is not set");
    }

    @Test
    void provider_isFoundByScheme_andConnectsLazily() {
        // Nothing listens on port 1: opening must not fail, only calls would.
        try (WorkerRegistry r = WorkerRegistries.open("etcd://127.0.0.1:1/x", Path.of("."))) {
            assertThat(r).isInstanceOf(EtcdRegistry.class);
        }
        try (WorkerRegistry r = WorkerRegistries.open("etcds://127.0.0.1:1/x", Path.of("."))) {
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

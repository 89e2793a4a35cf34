package io.idmint.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idmint.client.IdClient;
import io.idmint.client.IdServiceUnavailableException;
import io.idmint.testkit.TestPki;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code idmint-client} against a real {@code serve} with TLS and with mutual TLS: a client that
 * trusts the node's CA (and, for mutual TLS, presents a certificate of the client CA) draws
 * IDs; one trusting another CA, or presenting no certificate, gets the typed exception naming
 * the endpoint, within its deadline, and no ID.
 */
class IdClientTlsIT {

    private static final Duration DEADLINE = Duration.ofSeconds(2);

    @TempDir
    Path dir;

    @Test
    void tls_clientTrustingTheCa_drawsIds_anotherCa_isRefused() throws Exception {
        TestPki ca = TestPki.create(dir.resolve("ca"), "test-ca");
        TestPki other = TestPki.create(dir.resolve("other"), "other-ca");
        try (Server server = start(ca.server("node"))) {
            try (IdClient client = client(server).trustCertificates(ca.certificate()).build()) {
                assertThat(draw(client, 10_000)).hasSize(10_000);
            }
            try (IdClient client = client(server).trustCertificates(other.certificate())
                    .build()) {
                assertRefused(client, server);
            }
        }
    }

    @Test
    void mutualTls_clientCertificateOfTheClientCa_isServed_noneIsRefused() throws Exception {
        TestPki ca = TestPki.create(dir.resolve("ca"), "test-ca");
        TestPki.Issued alice = ca.client("alice");
        try (Server server = start(ca.server("node"), "tls.client-ca=" + ca.certificate())) {
            try (IdClient client = client(server).trustCertificates(ca.certificate())
                    .clientCertificate(alice.certificate(), alice.privateKey()).build()) {
                assertThat(draw(client, 1_000)).hasSize(1_000);
            }
            try (IdClient client = client(server).trustCertificates(ca.certificate()).build()) {
                assertRefused(client, server);
            }
        }
    }

    private Server start(TestPki.Issued node, String... more) {
        String[] settings = new String[more.length + 2];
        settings[0] = "tls.cert=" + node.certificate();
        settings[1] = "tls.key=" + node.privateKey();
        System.arraycopy(more, 0, settings, 2, more.length);
        return Server.start(TestServers.config(dir.resolve("data"), settings), w -> { });
    }

    private static IdClient.Builder client(Server server) {
        return IdClient.builder().endpoints(java.util.List.of("127.0.0.1:" + server.grpcPort()))
                .deadline(DEADLINE).callTimeout(Duration.ofMillis(500));
    }

    private static Set<Long> draw(IdClient client, int n) {
        Set<Long> ids = new HashSet<>();
        long last = Long.MIN_VALUE;
        for (int i = 0; i < n; i++) {
            long id = client.nextId();
            assertThat(id).isGreaterThan(last);
            last = id;
            ids.add(id);
        }
        return ids;
    }

    private static void assertRefused(IdClient client, Server server) {
        long start = System.nanoTime();
        assertThatThrownBy(client::nextId).isInstanceOfSatisfying(
                IdServiceUnavailableException.class, e -> assertThat(e.failures())
                        .containsKey("127.0.0.1:" + server.grpcPort()));
        assertThat(Duration.ofNanos(System.nanoTime() - start))
                .isLessThan(DEADLINE.multipliedBy(3));
    }
}

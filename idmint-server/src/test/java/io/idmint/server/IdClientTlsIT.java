package io.idmint.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idmint.client.IdClient;
import io.idmint.client.IdServiceUnavailableException;
import io.idmint.server.harness.TestServers;
import io.idmint.testkit.TestPki;
import io.idmint.testkit.TestTime;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code idmint-client} against a real {@code serve} with mutual TLS: a client presenting a
 * certificate of the client CA draws IDs; one trusting another CA gets the typed exception
 * naming the endpoint, within its deadline. The other TLS cases run against a scripted server
 * in idmint-client's IdClientTlsTest.
 */
class IdClientTlsIT {

    private static final Duration DEADLINE = Duration.ofSeconds(2);

    @TempDir
    Path dir;

    @Test
    void mutualTls_clientCertificateOfTheCa_drawsIds_clientTrustingAnotherCa_isRefused()
            throws Exception {
        TestPki ca = TestPki.create(dir.resolve("ca"), "test-ca");
        TestPki other = TestPki.create(dir.resolve("other"), "other-ca");
        TestPki.Issued node = ca.server("node");
        TestPki.Issued alice = ca.client("alice");
        try (Server server = TestServers.start(dir.resolve("data"),
                "tls.cert=" + node.certificate(), "tls.key=" + node.privateKey(),
                "tls.client-ca=" + ca.certificate())) {
            String target = "127.0.0.1:" + server.grpcPort();
            // The first call makes the TLS handshake on a cold server: more than the refusal's
            // 500 ms call timeout on a loaded machine, so the client that must succeed waits
            // longer. How long a refusal may take is the second client's business.
            try (IdClient client = client(target).trustCertificates(ca.certificate())
                    .clientCertificate(alice.certificate(), alice.privateKey())
                    .deadline(TestTime.scaled(Duration.ofSeconds(20)))
                    .callTimeout(TestTime.scaled(Duration.ofSeconds(5))).build()) {
                long last = Long.MIN_VALUE;
                for (int i = 0; i < 10_000; i++) {
                    long id = client.nextId();
                    assertThat(id).isGreaterThan(last);
                    last = id;
                }
            }
            try (IdClient client = client(target).trustCertificates(other.certificate())
                    .clientCertificate(alice.certificate(), alice.privateKey()).build()) {
                long start = System.nanoTime();
                assertThatThrownBy(client::nextId).isInstanceOfSatisfying(
                        IdServiceUnavailableException.class,
                        e -> assertThat(e.failures()).containsKey(target));
                assertThat(Duration.ofNanos(System.nanoTime() - start))
                        .isLessThan(DEADLINE.multipliedBy(3));
            }
        }
    }

    private static IdClient.Builder client(String target) {
        return IdClient.builder().endpoints(List.of(target)).deadline(DEADLINE)
                .callTimeout(Duration.ofMillis(500));
    }
}

package io.idmint.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idmint.Layout;
import io.idmint.WorkerRegistries;
import io.idmint.segment.RangeStores;
import io.idmint.spi.Claim;
import io.idmint.spi.ClaimRequest;
import io.idmint.spi.RangeStore;
import io.idmint.spi.RegistryException;
import io.idmint.spi.WorkerRecord;
import io.idmint.spi.WorkerRegistry;
import io.idmint.testkit.TestPki;
import java.nio.file.Path;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The registry and the segment store over {@code etcds://} against a real member that demands
 * a client certificate signed by the test authority; and the errors of a wrong authority, a
 * missing client certificate and a plain-text URI.
 */
class EtcdTlsIT {

    private static EtcdSecured secured;

    private final String namespace = "t" + UUID.randomUUID().toString().substring(0, 8);

    @BeforeAll
    static void start() throws Exception {
        secured = new EtcdSecured(true);
    }

    @AfterAll
    static void stop() {
        secured.close();
    }

    @Test
    void registryAndSegments_workWithCaAndClientCertificate() throws Exception {
        String uri = secured.uri("5s", secured.clientCertificate());
        try (WorkerRegistry r = WorkerRegistries.open(uri, Path.of("unused"))) {
            Claim c = r.claim(request());
            assertThat(r.list(namespace)).extracting(WorkerRecord::workerId)
                    .containsExactly(c.workerId());
            r.release(c, c.hwmMillis());
        }
        try (RangeStore s = RangeStores.open(uri, Path.of("unused"))) {
            s.create(namespace, 1, 100);
            assertThat(s.allocate(namespace, 100).start()).isEqualTo(1);
            assertThat(s.allocate(namespace, 100).start()).isEqualTo(101);
        }
    }

    @Test
    void wrongCa_failsNamingTheEndpointAndCertificate_withinTheTimeout() {
        TestPki other = TestPki.create(secured.dir.resolve("other"), "other-ca");
        String uri = "etcds://" + secured.etcd.endpoints() + EtcdSecured.PREFIX + "?ca-file="
                + other.certificate() + "&timeout=2s" + secured.clientCertificate();
        long start = System.nanoTime();
        try (WorkerRegistry r = WorkerRegistries.open(uri, Path.of("unused"))) {
            assertThatThrownBy(() -> r.claim(request())).isInstanceOf(RegistryException.class)
                    .hasMessageContaining("TLS handshake with https://" + secured.etcd.endpoints())
                    .hasMessageContaining("certificate is not trusted by ca-file");
        }
        assertThat((System.nanoTime() - start) / 1_000_000).isLessThan(4_000);
    }

    @Test
    void noClientCertificate_failsNamingTheCertificate() {
        try (WorkerRegistry r = WorkerRegistries.open(secured.uri("2s", ""), Path.of("."))) {
            assertThatThrownBy(() -> r.claim(request())).isInstanceOf(RegistryException.class)
                    .hasMessageContaining("TLS handshake with https://" + secured.etcd.endpoints())
                    .hasMessageContaining("demand a client certificate");
        }
    }

    @Test
    void plainUri_againstTlsMember_failsSayingEtcds() {
        String uri = "etcd://" + secured.etcd.endpoints() + "/x?timeout=2s";
        try (WorkerRegistry r = WorkerRegistries.open(uri, Path.of("unused"))) {
            assertThatThrownBy(() -> r.claim(request())).isInstanceOf(RegistryException.class)
                    .hasMessageContaining(secured.etcd.endpoints())
                    .hasMessageContaining("etcds://");
        }
    }

    @Test
    void missingCaFile_isAClearErrorAtOpen() {
        String uri = "etcds://" + secured.etcd.endpoints() + "/x?ca-file=/nonexistent/ca.pem";
        assertThatThrownBy(() -> WorkerRegistries.open(uri, Path.of("unused")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("ca-file '/nonexistent/ca.pem' does not exist");
    }

    private ClaimRequest request() {
        return new ClaimRequest(namespace, Layout.SNOWFLAKE.spec(), 1, "", 31, -1, 30_000,
                "tls-test");
    }
}

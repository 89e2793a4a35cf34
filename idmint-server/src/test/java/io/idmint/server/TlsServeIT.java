package io.idmint.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.idmint.server.harness.IdmintProcesses;
import io.idmint.server.harness.IdmintProcesses.Node;
import io.idmint.testkit.TestPki;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.Map;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real {@code idmint serve} with TLS: it refuses to start on a key that does not match, says
 * https in its banner, answers {@code idmint health}, and takes certificate files replaced on
 * disk by itself (its own poll, not a call from the test), refusing a broken one with a log line.
 */
class TlsServeIT {

    @TempDir
    Path dir;

    private IdmintProcesses procs;

    @AfterEach
    void stop() throws InterruptedException {
        if (procs != null) {
            procs.close();
        }
    }

    @Test
    void serve_withTls_refusesABadKey_thenReloadsReplacedFilesByItself() throws Exception {
        procs = new IdmintProcesses(dir);
        TestPki ca = TestPki.create(dir.resolve("pki"), "test-ca");
        TestPki other = TestPki.create(dir.resolve("other"), "other-ca");
        Path cert = dir.resolve("node.crt");
        Path key = dir.resolve("node.key");
        TlsIT.install(ca.server("node"), cert, key);
        Path otherKey = other.server("stranger").privateKey();

        IdmintProcesses.Run refused = procs.run("bad-key", Map.of(), "serve", "--bind",
                "127.0.0.1", "--http-port", "0", "--grpc-port", "0", "--data-dir",
                dir.resolve("data-bad").toString(), "--tls-cert", cert.toString(), "--tls-key",
                otherKey.toString());
        assertThat(refused.exitCode()).isEqualTo(Main.USAGE);
        assertThat(refused.err()).contains("tls.key '" + otherKey + "' does not match the "
                + "certificate CN=node in tls.cert '" + cert + "'");
        assertThat(refused.out()).isEmpty();

        Node node = procs.serve("tls", Map.of(), "--tls-cert", cert.toString(), "--tls-key",
                key.toString());
        assertThat(node.banner).startsWith("idmint serving https://127.0.0.1:" + node.port
                + " grpc 127.0.0.1:" + node.grpcPort + " with TLS (datacenter 0, worker 0");
        // serve refuses --static-peers with TLS, so the banner must not suggest it.
        assertThat(node.banner).endsWith("registry static: is ONE HOST ONLY: another host needs "
                + "another --worker, or a shared registry (etcd://, zk://, jdbc:)");
        BigInteger first = serial(cert);
        assertThat(servedSerial(ca, node)).isEqualTo(first);
        IdmintProcesses.Run health = procs.run("health", Map.of("IDMINT_TLS_CERT",
                cert.toString(), "IDMINT_TLS_KEY", key.toString()), "health", "--bind",
                "127.0.0.1", "--http-port", Integer.toString(node.port));
        assertThat(health.out()).startsWith("https://127.0.0.1:" + node.port
                + "/health/ready 200");
        assertThat(health.exitCode()).isEqualTo(Main.OK);

        TlsIT.install(ca.server("node-2"), cert, key);
        BigInteger second = serial(cert);
        procs.await(Duration.ofSeconds(30), "a new connection gets the new certificate",
                () -> second.equals(servedSerial(ca, node)), () -> "serial "
                        + servedSerial(ca, node));
        assertThat(procs.stderrOf("tls")).contains("TLS: new handshakes get certificate "
                + "CN=node-2 serial " + second.toString(16));

        Files.writeString(cert, "-----BEGIN CERTIFICATE-----\nbroken\n");
        procs.await(Duration.ofSeconds(30), "the broken file is refused in the log",
                () -> procs.stderrOf("tls").contains("TLS: refused the changed files, still "
                        + "serving certificate serial " + second.toString(16)),
                () -> procs.stderrOf("tls"));
        assertThat(servedSerial(ca, node)).isEqualTo(second);
        assertThat(node.sigterm()).isZero();
    }

    /** The serial of the certificate a new connection to the HTTP port gets. */
    private static BigInteger servedSerial(TestPki ca, Node node) {
        try {
            SSLContext context = TlsIT.context(ca, null);
            try (SSLSocket socket = (SSLSocket) context.getSocketFactory()
                    .createSocket("127.0.0.1", node.port)) {
                socket.setSoTimeout(10_000);
                socket.startHandshake();
                return ((X509Certificate) socket.getSession().getPeerCertificates()[0])
                        .getSerialNumber();
            }
        } catch (Exception e) {
            throw new AssertionError("TLS handshake with " + node.name + ": " + e, e);
        }
    }

    private static BigInteger serial(Path pem) throws Exception {
        return TlsIT.x509(pem).getSerialNumber();
    }
}

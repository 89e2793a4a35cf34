package io.idmint.server.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.idmint.server.Main;
import io.idmint.server.harness.Cli;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import org.junit.jupiter.api.Test;

/** {@code idmint health} when nothing answers (ImageIT asks a running server through it). */
class HealthCommandTest {

    @Test
    void health_nothingListening_exits1NamingTheUrl() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        Cli.Result r = Cli.run("health", "--live", "--http-port", Integer.toString(port));

        assertThat(r.exitCode()).isEqualTo(Main.FAILURE);
        assertThat(r.err()).contains("http://127.0.0.1:" + port + "/health/live: no answer");
        assertThat(r.out()).isEmpty();
    }

    @Test
    void health_nothingListening_givesNoTlsHint() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        Cli.Result r = Cli.run("health", "--http-port", Integer.toString(port));

        assertThat(r.err()).doesNotContain("TLS");
    }

    @Test
    void health_connectionDroppedWithoutAnAnswer_suggestsTheTlsCertificate() throws Exception {
        // As a TLS node does with a plain request: it reads it, then closes the connection (each
        // time: the JDK sends a GET twice when the first connection ends without an answer).
        ServerSocket s = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread dropper = new Thread(() -> {
            while (!s.isClosed()) {
                try (Socket c = s.accept()) {
                    c.getInputStream().read(new byte[1024]);
                } catch (IOException e) {
                    // closed by the test, or the client went away
                }
            }
        });
        dropper.start();
        Cli.Result r;
        try {
            r = Cli.run("health", "--http-port", Integer.toString(s.getLocalPort()));
        } finally {
            s.close();
            dropper.join();
        }

        assertThat(r.exitCode()).isEqualTo(Main.FAILURE);
        assertThat(r.err()).contains("http://127.0.0.1:" + s.getLocalPort()
                + "/health/ready: no answer: ")
                .contains("(if the node serves TLS, give its certificate: --tls-cert or "
                        + "IDMINT_TLS_CERT)");
    }

    @Test
    void host_wildcardBind_isLoopback_elseTheBindAddress() throws Exception {
        assertThat(HealthCommand.host("0.0.0.0")).isEqualTo("127.0.0.1");
        assertThat(HealthCommand.host("::")).isEqualTo("127.0.0.1");
        assertThat(HealthCommand.host("127.0.0.2")).isEqualTo("127.0.0.2");
        assertThat(HealthCommand.host("::1")).isEqualTo("[::1]");
    }

    @Test
    void health_badPort_isAUsageError() {
        Cli.Result r = Cli.run("health", "--http-port", "70000");

        assertThat(r.exitCode()).isEqualTo(Main.USAGE);
        assertThat(r.err()).contains("http-port '70000'");
    }
}

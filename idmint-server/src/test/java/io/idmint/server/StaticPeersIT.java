package io.idmint.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.idmint.server.IdmintProcesses.Node;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The static: registry's peer check on two real {@code idmint serve} processes on two data
 * directories, what two hosts with a copied configuration are: both hold datacenter 0 / worker 0
 * and would mint the same IDs. With {@code --static-peers} each asks the other's status; on a
 * clash the node that sees it is not ready and names both nodes.
 */
class StaticPeersIT {

    private static final Duration WAIT = Duration.ofSeconds(30);

    @TempDir
    Path tmp;

    private IdmintProcesses procs;

    @AfterEach
    void close() throws InterruptedException {
        if (procs != null) {
            procs.close();
        }
    }

    @Test
    void sameWorkerOnTwoDataDirs_neitherReady_namingBothNodes() throws Exception {
        procs = new IdmintProcesses(tmp);
        int portA = freePort();
        int portB = freePort();
        Node a = procs.serve("a", Map.of(), "--http-port", Integer.toString(portA),
                "--static-peers", "127.0.0.1:" + portB);
        a.awaitReady(WAIT);
        assertThat(a.banner).endsWith("; registry static: is ONE HOST ONLY: another host needs "
                + "another --worker; checking 127.0.0.1:" + portB + " every 5s");

        Node b = procs.serve("b", Map.of(), "--http-port", Integer.toString(portB),
                "--static-peers", "127.0.0.1:" + portA);

        String clash = "peer clash: worker 0 of datacenter 0 in layout "
                + "time=41,datacenter=5,worker=5,sequence=12,tick=1ms,epoch=2026-01-01T00:00:00Z"
                + " is held both by this node (";
        b.awaitNotReady(WAIT, clash);
        String detail = (String) b.ready().json().get("detail");
        assertThat(detail).contains(procs.dataDir("b").toAbsolutePath().normalize().toString())
                .contains("and by peer 127.0.0.1:" + portA + " (")
                .contains(procs.dataDir("a").toAbsolutePath().normalize().toString())
                .contains("give each node its own --worker");
        assertThat(b.tryMint(1).status()).isEqualTo(503);
        assertThat(b.stderr()).contains("NOT READY: " + clash);
        // The first node sees it on its next check, and stops issuing too.
        a.awaitNotReady(WAIT, "and by peer 127.0.0.1:" + portB + " (");
        assertThat(a.tryMint(1).status()).isEqualTo(503);
    }

    @Test
    void distinctWorkers_bothReady_andANodeListedAsItsOwnPeerIsSkipped() throws Exception {
        procs = new IdmintProcesses(tmp);
        int portA = freePort();
        int portB = freePort();
        String both = "127.0.0.1:" + portA + ",127.0.0.1:" + portB;
        Node a = procs.serve("a", Map.of(), "--http-port", Integer.toString(portA),
                "--static-peers", both, "--worker", "1");
        a.awaitReady(WAIT);
        Node b = procs.serve("b", Map.of(), "--http-port", Integer.toString(portB),
                "--static-peers", both, "--worker", "2");

        b.awaitReady(WAIT);
        assertThat(a.mint(100)).doesNotContainAnyElementsOf(b.mint(100));
        assertThat(a.ready().status()).isEqualTo(200);
    }

    @Test
    void staticPeersWithASharedRegistryOrBad_exits2_andHelpStatesTheOneHostRule() throws Exception {
        Cli.Result r = Cli.run("serve", "--static-peers", "127.0.0.1:1", "--registry",
                "jdbc:h2:mem:peers", "--http-port", "0", "--grpc-port", "0", "--data-dir",
                tmp.toString());

        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.err()).contains("static.peers checks the workers of the static: registry");
        Cli.Result bad = Cli.run("serve", "--static-peers", "host-without-port", "--data-dir",
                tmp.toString());
        assertThat(bad.exitCode()).isEqualTo(2);
        assertThat(bad.err()).contains("got 'host-without-port'");
        assertThat(Cli.run("serve", "--help").out()).contains("The default registry, static:, "
                + "keeps workers unique on ONE HOST ONLY").contains("--static-peers=HOST:PORT");
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }
}

package io.idmint.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.idmint.server.harness.Cli;
import io.idmint.server.harness.Http;
import io.idmint.server.harness.IdmintProcesses;
import io.idmint.server.harness.IdmintProcesses.Node;
import io.idmint.server.mint.StaticPeerCheck;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The static: registry's peer check on two real {@code idmint serve} processes on two data
 * directories, what two hosts with a copied configuration are: both hold datacenter 0 / worker 0
 * and would mint the same IDs. With {@code --static-peers} each asks the other's status; on a
 * clash (or another layout) the node that sees it is not ready and names both nodes, and no node
 * issues before a check has decided.
 */
class StaticPeersIT {

    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final String LAYOUT =
            "time=41,datacenter=5,worker=5,sequence=12,tick=1ms,epoch=2026-01-01T00:00:00Z";

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
    void sameWorkerStartedTogether_neverIssues_andNeitherReady_namingBothNodes()
            throws Exception {
        procs = new IdmintProcesses(tmp);
        int portA = freePort();
        int portB = freePort();
        ExecutorService starter = Executors.newFixedThreadPool(2);
        try {
            Future<Node> startA = starter.submit(() -> procs.serve("a", Map.of(), "--http-port",
                    Integer.toString(portA), "--static-peers", "127.0.0.1:" + portB));
            Future<Node> startB = starter.submit(() -> procs.serve("b", Map.of(), "--http-port",
                    Integer.toString(portB), "--static-peers", "127.0.0.1:" + portA));
            // From the first moment either listens until both have seen the clash (their
            // second check at the latest, a full period after start), no ID is ever issued.
            String clash = "peer clash: worker 0 of datacenter 0 in layout " + LAYOUT
                    + " is held both by this node (";
            Http a = new Http(portA);
            Http b = new Http(portB);
            List<String> answers = new ArrayList<>();
            procs.await(WAIT, "both nodes not ready with '" + clash + "'", () -> {
                for (Http node : List.of(a, b)) {
                    Http.Response id = tryGet(node, "/v1/ids?count=1");
                    if (id != null) {
                        answers.add(id.status() + " " + id.body());
                        assertThat(id.status()).as(procs.describe(node.base() + " issued "
                                + id.body())).isEqualTo(503);
                    }
                }
                Http.Response ra = tryGet(a, "/health/ready");
                Http.Response rb = tryGet(b, "/health/ready");
                return ra != null && rb != null && ra.body().contains(clash)
                        && rb.body().contains(clash);
            }, () -> answers.isEmpty() ? "no answer" : answers.get(answers.size() - 1));
            assertThat(answers).as("the /v1/ids answers while starting").isNotEmpty();
            Node na = startA.get();
            Node nb = startB.get();
            assertThat(na.banner).endsWith("; registry static: is ONE HOST ONLY: another host "
                    + "needs another --worker; checking 127.0.0.1:" + portB + " every 5s");
            for (Node[] pair : new Node[][] {{na, nb}, {nb, na}}) {
                Http.Response ready = pair[0].ready();
                assertThat(ready.status()).isEqualTo(503);
                String detail = (String) ready.json().get("detail");
                assertThat(detail).startsWith(clash)
                        .contains(procs.dataDir(pair[0].name).toAbsolutePath().normalize()
                                .toString())
                        .contains("and by peer 127.0.0.1:" + pair[1].port + " (")
                        .contains(procs.dataDir(pair[1].name).toAbsolutePath().normalize()
                                .toString())
                        .contains("give each node its own --worker");
                assertThat(pair[0].tryMint(1).status()).isEqualTo(503);
                assertThat(pair[0].stderr()).contains("NOT READY: " + clash);
            }
        } finally {
            starter.shutdownNow();
        }
    }

    @Test
    void sameWorkerInALayoutOfAnotherEpoch_notReady_namingBothLayouts() throws Exception {
        procs = new IdmintProcesses(tmp);
        Node a = procs.serve("a", Map.of());
        a.awaitReady(WAIT);
        String other = LAYOUT.replace("epoch=2026-01-01", "epoch=2025-01-01");

        Node b = procs.serve("b", Map.of(), "--layout", other, "--static-peers",
                "127.0.0.1:" + a.port);

        b.awaitNotReady(WAIT, "peer clash: peer 127.0.0.1:" + a.port + " (");
        assertThat((String) b.ready().json().get("detail"))
                .contains(" uses layout " + LAYOUT + " and this node (")
                .contains(") layout " + other + "; a fleet shares one layout")
                .contains("give every node the same --layout");
        assertThat(b.tryMint(1).status()).isEqualTo(503);
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
        // Both stay ready through a periodic check made while both listen, in which each has
        // seen itself in the list (a node that did not skip itself would clash with itself).
        long until = System.nanoTime() + StaticPeerCheck.PERIOD.plusSeconds(3).toNanos();
        while (System.nanoTime() < until) {
            assertThat(a.ready().status()).as(procs.describe("a ready")).isEqualTo(200);
            assertThat(b.ready().status()).as(procs.describe("b ready")).isEqualTo(200);
            Thread.sleep(100);
        }
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

    /** The answer to a GET, or null while nothing listens on the port. */
    private static Http.Response tryGet(Http node, String path) {
        try {
            return node.get(path);
        } catch (AssertionError e) {
            if (e.getCause() instanceof java.net.ConnectException) {
                return null;
            }
            throw e;
        }
    }

    private static int freePort() {
        return io.idmint.testkit.LocalProcesses.freePort();
    }
}

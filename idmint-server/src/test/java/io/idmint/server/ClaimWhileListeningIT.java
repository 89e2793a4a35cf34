package io.idmint.server;

import static io.idmint.server.HttpApiIT.assertProblem;
import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.health.v1.HealthGrpc;
import io.idmint.Layout;
import io.idmint.server.harness.Http;
import io.idmint.server.harness.IdmintProcesses;
import io.idmint.server.harness.IdmintProcesses.Node;
import io.idmint.server.harness.IdmintProcesses.Spawned;
import io.idmint.testkit.LocalProcesses;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code serve} listens while its worker claim waits (issue 36, item 2), on real processes and a
 * real ZooKeeper: a node on Leaf's worker IDs ({@code --layout leaf}, {@code leaf-name=}) killed
 * with SIGKILL and restarted on its data directory waits for its killed run's session to expire
 * (20 s here) before it holds its worker again. Meanwhile it must listen: {@code /health/live}
 * 200 within seconds of the start, {@code /health/ready} 503 and gRPC health NOT_SERVING with the
 * claim as the reason, ID calls refused with 503 + Retry-After, segment calls served; then ready
 * and minting on its own worker, above what it minted before the kill, once the session is gone.
 * A SIGTERM while the claim waits stops it at once, with exit 0. Before the fix, nothing listened
 * until the claim was done.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ClaimWhileListeningIT {

    /** The ZooKeeper session timeout the nodes ask for: how long a killed node holds on. */
    private static final long SESSION_MILLIS = 20_000;
    /**
     * A segment call waits up to 10 s for the store: the first one creates its tag on
     * ZooKeeper, which took over the default 1 s on a loaded machine (and answered 503).
     */
    private static final Map<String, String> ENV = Map.of("IDMINT_SEGMENT_FETCH_TIMEOUT", "10s");

    @TempDir
    Path tmp;

    private TestingServer zk;
    private IdmintProcesses procs;

    @BeforeAll
    void startZooKeeper() throws Exception {
        // A short tick and session bounds of 200 ms to 60 s, so that the session is the 20 s
        // the nodes ask for (the default bounds are 2 to 20 ticks).
        InstanceSpec spec = new InstanceSpec(null, -1, -1, -1, true, -1, 100, 0,
                Map.of("clientPortAddress", "127.0.0.1", "minSessionTimeout", "200",
                        "maxSessionTimeout", "60000", "admin.enableServer", "false"),
                "127.0.0.1");
        zk = new TestingServer(spec, true);
    }

    @AfterAll
    void stopZooKeeper() throws IOException {
        if (zk != null) {
            zk.close();
        }
    }

    @BeforeEach
    void processes(TestInfo info) throws IOException {
        procs = new IdmintProcesses(Files.createDirectories(
                tmp.resolve(info.getTestMethod().orElseThrow().getName())));
    }

    @AfterEach
    void killEveryProcess() throws InterruptedException {
        procs.close();
    }

    @Test
    void leafNameNodeKilledAndRestarted_listensAtOnce_readyOnceItsOldSessionExpires()
            throws Exception {
        String[] args = args("orders");
        Node first = procs.serve("first", ENV, args);
        first.awaitReady(Duration.ofSeconds(30));
        int worker = first.bannerWorker;
        assertThat(worker).as(first.banner).isNotNegative();
        List<Long> before = first.mint(2000);
        first.kill9();
        long killed = System.nanoTime();

        int httpPort = LocalProcesses.freePort();
        int grpcPort = LocalProcesses.freePort();
        Spawned again = procs.spawn("again", procs.dataDir("first"), ENV,
                withPorts(args, httpPort, grpcPort));
        Http http = new Http(httpPort);
        long live = procs.await(Duration.ofSeconds(10), "the restarted node live",
                () -> status(http, "/health/live") == 200, () -> "no answer");
        long liveSinceKill = sinceMillis(killed);

        // Live, and still claiming: its killed run's session holds the worker for a while yet.
        Http.Response ready = http.get("/health/ready");
        assertThat(ready.status()).as(procs.describe("ready " + liveSinceKill + " ms after the "
                + "kill, while the old session lives: " + ready.body())).isEqualTo(503);
        assertThat(ready.header("retry-after")).isEqualTo("1");
        assertThat(ready.json()).containsEntry("state", "ACQUIRING")
                .containsEntry("worker", null);
        assertThat(ready.body()).contains("claiming a worker ID from registry zk://");
        assertThat(http.get("/api/v1/status").body()).contains("claiming a worker ID");
        for (String path : new String[] {"/v1/id", "/v1/ids?count=5", "/api/v1/ids?count=5"}) {
            Http.Response r = http.get(path);
            assertThat(r.status()).as(path + ": " + r.body()).isEqualTo(503);
            assertThat(r.header("retry-after")).as(path).isNotNull();
        }
        assertProblem(http.get("/v1/id"), 503, "(NO_LEASE)");
        Http.Response segment = http.get("/api/v1/segments/order/ids?count=3");
        assertThat(segment.status()).as("a segment call while claiming: " + segment.body())
                .isEqualTo(200);
        assertThat(grpcHealth(grpcPort)).isEqualTo(ServingStatus.NOT_SERVING);
        assertThat(again.process.isAlive()).isTrue();

        long readyAt = procs.await(Duration.ofSeconds(SESSION_MILLIS / 1000 + 30),
                "the restarted node ready", () -> status(http, "/health/ready") == 200,
                () -> http.get("/health/ready").body());
        long readySinceKill = sinceMillis(killed);
        Node node = again.awaitBanner(Duration.ofSeconds(10));
        assertThat(node.bannerWorker).as("the banner, after the claim: " + node.banner)
                .isEqualTo(worker);
        assertThat(readySinceKill).as("ready only once the old session could expire")
                .isGreaterThan(SESSION_MILLIS / 2);
        // gRPC health follows readiness within its poll period.
        procs.await(Duration.ofSeconds(10), "gRPC health SERVING",
                () -> grpcHealth(grpcPort) == ServingStatus.SERVING, () -> "NOT_SERVING");
        List<Long> after = node.mint(2000);
        assertThat(Collections.min(after)).as("above every ID before the kill")
                .isGreaterThan(Collections.max(before));
        List<Long> all = new ArrayList<>(before);
        all.addAll(after);
        assertThat(all).allSatisfy(id -> assertThat(Layout.LEAF.decode(id).workerId())
                .isEqualTo(worker));
        System.out.printf("[claim while listening] live %d ms after the restart (%d ms after "
                + "the kill), ready %d ms later (%d ms after the kill)%n", live, liveSinceKill,
                readyAt, readySinceKill);
    }

    @Test
    void sigtermWhileTheClaimWaits_exits0AtOnce_andALaterStartHoldsTheWorker()
            throws Exception {
        String[] args = args("billing");
        Node first = procs.serve("first", ENV, args);
        first.awaitReady(Duration.ofSeconds(30));
        int worker = first.bannerWorker;
        List<Long> before = first.mint(2000);
        first.kill9();
        long killed = System.nanoTime();

        int httpPort = LocalProcesses.freePort();
        Spawned again = procs.spawn("again", procs.dataDir("first"), ENV,
                withPorts(args, httpPort, LocalProcesses.freePort()));
        Http http = new Http(httpPort);
        procs.await(Duration.ofSeconds(10), "the restarted node claiming",
                () -> status(http, "/health/ready") == 503, () -> "no answer");
        assertThat(http.get("/health/ready").body()).contains("claiming a worker ID");

        long term = System.nanoTime();
        again.process.destroy();
        assertThat(again.process.waitFor(15, TimeUnit.SECONDS)).as("exited after SIGTERM")
                .isTrue();
        long exitedIn = sinceMillis(term);
        String stderr = Files.readString(again.stderr);
        assertThat(again.process.exitValue()).as(stderr).isZero();
        assertThat(stderr).contains("idmint: stopped");
        assertThat(sinceMillis(killed)).as("stopped before the old session expired")
                .isLessThan(SESSION_MILLIS);

        // The abandoned claim left nothing behind: the next start holds the same worker once
        // the killed run's session has expired, and mints above it.
        Node third = procs.serve("third", procs.dataDir("first"), ENV, args);
        third.awaitReady(Duration.ofSeconds(30));
        assertThat(third.bannerWorker).as(third.banner).isEqualTo(worker);
        assertThat(Collections.min(third.mint(2000))).isGreaterThan(Collections.max(before));
        System.out.printf("[claim while listening] SIGTERM while claiming: exit 0 in %d ms%n",
                exitedIn);
    }

    /**
     * The node's flags: Leaf's layout on Leaf's tree {@code leafName}, in a deployment (chroot)
     * of its own, segments on the same ZooKeeper.
     */
    private String[] args(String leafName) {
        String ensemble = "127.0.0.1:" + zk.getPort();
        return new String[] {"--layout", "leaf", "--registry", "zk://" + ensemble + "/idmint-"
                + leafName + "?timeout=2s&session=" + SESSION_MILLIS + "ms&leaf-name=" + leafName,
                "--segment-store", "zk://" + ensemble + "/idmint-seg-" + leafName,
                "--segment-auto-create", "true"};
    }

    private static String[] withPorts(String[] args, int http, int grpc) {
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(List.of("--http-port", Integer.toString(http), "--grpc-port",
                Integer.toString(grpc)));
        return all.toArray(String[]::new);
    }

    /** The status of a GET, or -1 while nothing listens. */
    private static int status(Http http, String path) {
        try {
            return http.get(path).status();
        } catch (AssertionError e) {
            if (e.getCause() instanceof java.net.ConnectException) {
                return -1;
            }
            throw e;
        }
    }

    private static ServingStatus grpcHealth(int port) {
        ManagedChannel channel = ManagedChannelBuilder.forAddress("127.0.0.1", port)
                .usePlaintext().build();
        try {
            return HealthGrpc.newBlockingStub(channel).withDeadlineAfter(10, TimeUnit.SECONDS)
                    .check(HealthCheckRequest.getDefaultInstance()).getStatus();
        } finally {
            channel.shutdownNow();
        }
    }

    private static long sinceMillis(long nanos) {
        return (System.nanoTime() - nanos) / 1_000_000;
    }
}

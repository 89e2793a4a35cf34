package io.idmint.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.idmint.Layout;
import io.idmint.grpc.v1.IdServiceGrpc;
import io.idmint.grpc.v1.NextIdsRequest;
import io.idmint.grpc.v1.StreamIdsRequest;
import io.idmint.server.harness.Cli;
import io.idmint.server.harness.Http;
import io.idmint.server.harness.IdmintProcesses;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code idmint serve --workers N}: the shaded jar in its own JVM on the {@code static:}
 * registry, leasing several workers and filling each batch from them.
 */
class StripedServeIT {

    private static final Layout LAYOUT = Layout.SNOWFLAKE;

    @TempDir
    Path tmp;

    private IdmintProcesses procs;

    @AfterEach
    void stop() throws InterruptedException {
        if (procs != null) {
            procs.close();
        }
    }

    @Test
    void workers2_leasesTwoWorkers_batchesComeSortedFromBoth_statusShowsBoth()
            throws Exception {
        procs = new IdmintProcesses(tmp);
        IdmintProcesses.Node node = procs.serve("striped", Map.of(), "--workers", "2");
        assertThat(node.bannerWorkers).isEqualTo("0,1");
        node.awaitReady(java.time.Duration.ofSeconds(20));

        Map<String, Object> ready = node.ready().json();
        assertThat(ready).containsEntry("state", "ACTIVE").containsEntry("worker", 0L);
        assertThat(workerIds(ready)).containsExactly(0L, 1L);
        assertThat(String.valueOf(ready.get("workers"))).contains("ACTIVE");

        List<Long> ids = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            Http.Response r = node.http.get("/v1/ids?count=10000");
            assertThat(r.status()).as(r.body()).isEqualTo(200);
            List<Long> batch = ((List<?>) r.json().get("ids")).stream()
                    .map(o -> Long.parseLong((String) o)).toList();
            assertThat(batch).hasSize(10_000).isSorted().doesNotHaveDuplicates();
            assertThat(workersOf(batch)).as("one batch from both workers").containsExactly(0, 1);
            if (!ids.isEmpty()) {
                assertThat(batch.get(0)).as("above the batch before, on one connection")
                        .isGreaterThan(ids.get(ids.size() - 1));
            }
            ids.addAll(batch);
        }

        Http.Response detailed = node.http.get("/api/v1/ids?count=10000");
        assertThat(detailed.status()).isEqualTo(200);
        List<Long> values = new ArrayList<>();
        for (Object o : (List<?>) detailed.json().get("ids")) {
            values.add(Long.parseLong((String) ((Map<?, ?>) o).get("value_string")));
        }
        assertThat(values).hasSize(10_000).isSorted();
        assertThat(workersOf(values)).containsExactly(0, 1);
        ids.addAll(values);

        ManagedChannel channel = ManagedChannelBuilder.forAddress("127.0.0.1", node.grpcPort)
                .usePlaintext().build();
        try {
            IdServiceGrpc.IdServiceBlockingStub stub = IdServiceGrpc.newBlockingStub(channel)
                    .withDeadlineAfter(20, TimeUnit.SECONDS);
            List<Long> unary = stub.nextIds(NextIdsRequest.newBuilder().setCount(10_000).build())
                    .getIdsList();
            assertThat(unary).hasSize(10_000).isSorted();
            assertThat(workersOf(unary)).containsExactly(0, 1);
            ids.addAll(unary);
            List<Long> streamed = new ArrayList<>();
            stub.streamIds(StreamIdsRequest.newBuilder().setCount(50_000).build())
                    .forEachRemaining(r -> streamed.addAll(r.getIdsList()));
            assertThat(streamed).hasSize(50_000).isSorted().doesNotHaveDuplicates();
            assertThat(workersOf(streamed)).as("a stream past one tick spills too")
                    .containsExactly(0, 1);
            ids.addAll(streamed);
        } finally {
            channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
        assertThat(new HashSet<>(ids)).as("no duplicate across every transport")
                .hasSize(ids.size());

        Map<String, Object> status = node.http.get("/api/v1/status").json();
        assertThat(workerIds(status)).containsExactly(0L, 1L);
        String metrics = node.http.get("/metrics").body();
        assertThat(metrics).contains("idmint_worker_id{stripe=\"0\"} 0.0",
                "idmint_worker_id{stripe=\"1\"} 1.0",
                "idmint_worker_lease_state{state=\"ACTIVE\",stripe=\"1\"} 1.0");

        // SIGTERM releases both workers, each with the time of the last ID it issued.
        assertThat(node.sigterm()).isZero();
        Path workers = tmp.resolve("data-striped/workers/default");
        for (int w = 0; w < 2; w++) {
            int worker = w;
            long last = ids.stream().filter(id -> LAYOUT.decode(id).workerId() == worker)
                    .mapToLong(id -> LAYOUT.decode(id).timestampMillis()).max().orElseThrow();
            assertThat(hwm(workers.resolve("worker-0-" + w + ".state")))
                    .as("final HWM of worker " + w).isEqualTo(last);
        }
        long newest = ids.stream().mapToLong(Long::longValue).max().orElseThrow();
        IdmintProcesses.Node again = procs.serve("striped", Map.of(), "--workers", "2");
        assertThat(again.bannerWorkers).startsWith("0,");
        again.awaitReady(java.time.Duration.ofSeconds(20));
        assertThat(again.mint(2_000).get(0)).isGreaterThan(newest);
    }

    @Test
    void workersBeyondTheLayout_orNotANumber_refuseToStartNamingTheValue() {
        Cli.Result tooMany = Cli.run("serve", "--workers", "33", "--http-port", "0",
                "--grpc-port", "0", "--bind", "127.0.0.1", "--data-dir", tmp.toString());
        assertThat(tooMany.exitCode()).isEqualTo(Main.USAGE);
        assertThat(tooMany.err()).contains("workers 33 exceeds the 32 worker IDs of layout "
                + "snowflake");
        assertThat(tmp.resolve("workers")).as("nothing leased").doesNotExist();

        Cli.Result bad = Cli.run(Map.of("IDMINT_WORKERS", "many"), "serve", "--data-dir",
                tmp.toString());
        assertThat(bad.exitCode()).isEqualTo(Main.USAGE);
        assertThat(bad.err()).contains("workers 'many' (from environment variable "
                + "IDMINT_WORKERS)", "1 to 1024, or auto");
    }

    /**
     * More workers asked for than are free: the claim fails for good once the node listens (it
     * claims off the start path), and serve exits 1 with the claim's message, as it did when it
     * claimed before listening, having given back the worker it took; the holder is untouched.
     */
    @Test
    void workersMoreThanAreFree_exits1WithTheClaimsMessage_andGivesTheWorkerBack()
            throws Exception {
        procs = new IdmintProcesses(tmp);
        String poolOf2 = "time=41,worker=1,sequence=12";
        IdmintProcesses.Node holder = procs.serve("holder", Map.of(), "--layout", poolOf2);
        holder.awaitReady(java.time.Duration.ofSeconds(20));
        assertThat(holder.bannerWorker).isZero();

        IdmintProcesses.Spawned striped = procs.spawn("striped", procs.dataDir("holder"),
                Map.of(), "--layout", poolOf2, "--workers", "2");

        assertThat(striped.process.waitFor(60, TimeUnit.SECONDS)).as("serve exited").isTrue();
        String err = Files.readString(striped.stderr);
        assertThat(striped.process.exitValue()).as(err).isEqualTo(Main.FAILURE);
        assertThat(err).contains("idmint: workers 2: only 1 worker IDs of datacenter 0 were "
                + "free");
        Cli.Result list = Cli.run("registry", "list", "--data-dir",
                procs.dataDir("holder").toString(), "--json");
        assertThat(list.exitCode()).as(list.err()).isZero();
        List<Map<String, Object>> rows = list.out().lines().map(Http::object).toList();
        assertThat(rows).as(list.out()).hasSize(2);
        assertThat(rows.get(0)).containsEntry("worker_id", 0L);
        assertThat((String) rows.get(0).get("holder")).endsWith("/" + holder.pid());
        assertThat(rows.get(1)).as("worker 1, free again").containsEntry("worker_id", 1L)
                .containsEntry("holder", "");
        assertThat(holder.ready().status()).isEqualTo(200);
        assertThat(holder.stderr()).doesNotContain("-> LOST");
    }

    private static Set<Integer> workersOf(List<Long> ids) {
        Set<Integer> workers = new TreeSet<>();
        ids.forEach(id -> workers.add(LAYOUT.decode(id).workerId()));
        return workers;
    }

    private static List<Long> workerIds(Map<String, Object> json) {
        List<Long> out = new ArrayList<>();
        for (Object o : (List<?>) json.get("workers")) {
            out.add((Long) ((Map<?, ?>) o).get("worker"));
        }
        return out;
    }

    private static long hwm(Path state) throws java.io.IOException {
        Matcher m = Pattern.compile("(?m)^hwm=(\\d+)$").matcher(Files.readString(state));
        assertThat(m.find()).as("hwm in " + state).isTrue();
        return Long.parseLong(m.group(1));
    }
}

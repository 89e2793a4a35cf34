package io.idmint.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.idmint.Layout;
import io.idmint.grpc.v1.IdServiceGrpc;
import io.idmint.grpc.v1.NextIdsRequest;
import io.idmint.server.harness.ChildProcess;
import io.idmint.server.harness.Cli;
import io.idmint.server.harness.Http;
import io.idmint.server.harness.IdmintProcesses;
import io.idmint.testkit.TestTime;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code idmint serve} as users run it: the shaded jar in its own JVM, stopped with SIGTERM.
 * Plus the start-up failures, run in-process through the same command line.
 */
class ServeIT {

    private static final Pattern BANNER = Pattern.compile("idmint serving http://127\\.0\\.0\\.1:"
            + "(\\d+) grpc 127\\.0\\.0\\.1:(\\d+) \\(datacenter 0, worker (\\d+), layout "
            + "snowflake\\); registry static: is ONE HOST ONLY: another host needs another "
            + "--worker, or set --static-peers");
    private static final Layout LAYOUT = Layout.SNOWFLAKE;

    private static Path jar;

    @TempDir
    Path tmp;

    private final List<Process> processes = new ArrayList<>();

    @BeforeAll
    static void findJar() {
        jar = IdmintProcesses.shadedJar();
    }

    @AfterEach
    void killLeftovers() {
        processes.forEach(Process::destroyForcibly);
    }

    @Test
    void firstRequests_setUpNoFlightRecorder() throws Exception {
        // Netty's allocator emits JFR events; registering their types took ~100 ms of the first
        // request, and 20 MB, until serve turned them off (docs/observability.md, "Start-up").
        Path classes = tmp.resolve("classes.txt");
        Running r = start(tmp.resolve("data"), "jfr", "-Xlog:class+load=info:file=" + classes);

        assertThat(r.http.get("/health/ready").status()).isEqualTo(200);
        assertThat(fetch(r.http, 1)).hasSize(1001);
        assertThat(stop(r)).isZero();

        // The registry of event types; asking whether JFR is there at all is cheap.
        assertThat(Files.readAllLines(classes)).as("classes loaded by serve and two requests")
                .noneMatch(l -> l.contains(" jdk.jfr.internal.MetadataRepository "));
    }

    @Test
    void sigterm_releasesTheWorker_andARestartContinuesWithoutDuplicates() throws Exception {
        Path data = tmp.resolve("data");
        Path state = data.resolve("workers/default/worker-0-0.state");

        Running first = start(data, "first");
        assertThat(first.worker).isZero();
        List<Long> firstIds = fetch(first.http, 3);
        // gRPC is served by the same process, from the same generator.
        firstIds.addAll(grpcIds(first.grpcPort, 500));
        assertThat(new HashSet<>(firstIds)).hasSize(firstIds.size());
        long firstLast = Collections.max(firstIds);

        assertThat(stop(first)).isZero();
        assertThat(Files.readString(first.stderr)).contains("idmint: stopped; worker released");
        // Released with the last issued time, not left at a reservation seconds ahead.
        assertThat(hwm(state)).isEqualTo(LAYOUT.decode(firstLast).timestampMillis());

        Running second = start(data, "second");
        assertThat(second.worker).isZero();
        List<Long> secondIds = fetch(second.http, 3);
        assertThat(Collections.min(secondIds)).isGreaterThan(firstLast);
        assertThat(LAYOUT.decode(secondIds.get(0)).workerId()).isZero();

        // SIGTERM under load: every answer that arrives is a whole 200, none a 503 from a
        // generator closed too early, and the release still records the last issued time.
        List<Long> underLoad = new CopyOnWriteArrayList<>();
        List<String> failures = new CopyOnWriteArrayList<>();
        AtomicBoolean stopped = new AtomicBoolean();
        Thread load = new Thread(() -> hammer(second.port, underLoad, failures, stopped));
        load.start();
        long deadline = TestTime.deadline(Duration.ofSeconds(10));
        while (underLoad.size() < 5_000 && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertThat(stop(second)).isZero();
        stopped.set(true);
        load.join(TimeUnit.SECONDS.toMillis(20));

        assertThat(failures).isEmpty();
        assertThat(underLoad).hasSizeGreaterThanOrEqualTo(5_000);
        Set<Long> all = new HashSet<>(firstIds);
        all.addAll(secondIds);
        all.addAll(underLoad);
        assertThat(all).hasSize(firstIds.size() + secondIds.size() + underLoad.size());
        long lastMillis = LAYOUT.decode(Collections.max(underLoad)).timestampMillis();
        assertThat(hwm(state)).isBetween(lastMillis, lastMillis + 1000);
    }

    // ---------------------------------------------------------------- start-up failures

    @Test
    void badValue_exits2NamingKeyAndValue() {
        Cli.Result r = Cli.run("serve", "--http-port", "70000", "--data-dir",
                tmp.toString());

        assertThat(r.exitCode()).isEqualTo(Main.USAGE);
        assertThat(r.err()).contains("http-port '70000'").contains("port from 0 to 65535");
    }

    @Test
    void unknownConfigFileKey_exits2NamingIt() throws IOException {
        Path file = Files.writeString(tmp.resolve("idmint.properties"), "http-prot=1\n");

        Cli.Result r = Cli.run("serve", "--config", file.toString());

        assertThat(r.exitCode()).isEqualTo(Main.USAGE);
        assertThat(r.err()).contains("unknown key http-prot");
    }

    @Test
    void badEnvironmentValue_exits2NamingIt() {
        Cli.Result r = Cli.run(Map.of("IDMINT_MAX_COUNT", "0"), "serve", "--data-dir",
                tmp.toString());

        assertThat(r.exitCode()).isEqualTo(Main.USAGE);
        assertThat(r.err()).contains("max-count '0' (from environment variable "
                + "IDMINT_MAX_COUNT)");
    }

    @Test
    void sigterm_withTheLongestGraceAndReservation_stopsAtOnce_andARestartMints()
            throws Exception {
        // Regression: past these maxima, SIGTERM failed on a long overflow, and a restarted
        // node stayed CLOCK_BEHIND its own reservation for good.
        Path data = tmp.resolve("data");
        List<String> longest = List.of("--shutdown-grace", "10m", "--lease-reservation", "5m");

        Running first = start(data, "first", List.of(), longest);
        List<Long> firstIds = fetch(first.http, 1);
        assertThat(stop(first)).isZero(); // within seconds: nothing in flight, no grace wait
        assertThat(Files.readString(first.stderr)).contains("idmint: stopped; worker released")
                .doesNotContain("overflow", "Exception");

        Running second = start(data, "second", List.of(), longest);
        assertThat(second.worker).isZero();
        List<Long> secondIds = fetch(second.http, 1);
        assertThat(Collections.min(secondIds)).isGreaterThan(Collections.max(firstIds));
        assertThat(stop(second)).isZero();
    }

    @Test
    void badSegmentSettings_exit2NamingKeyAndValue() {
        String[][] cases = {
            {"--segment-step", "0", "segment.step '0' (from flag --segment-step) is not valid: "
                + "expected a whole number from 1 to 1099511627776 (2^40)"},
            {"--segment-max-step", "x", "segment.max-step 'x'"},
            {"--segment-target-duration", "0s", "segment.target-duration '0s' (from flag "
                + "--segment-target-duration) is not valid: '0s' must be between 1ms and 1h"},
            {"--segment-fetch-timeout", "2m", "segment.fetch-timeout '2m' (from flag "
                + "--segment-fetch-timeout) is not valid: '2m' must be between 1ms and 1m"},
            {"--segment-auto-create", "maybe", "segment.auto-create 'maybe'"},
            {"--segment-store", "nope://x", "segment store 'nope://x': no backend for scheme "
                + "'nope'"},
            {"--segment-min-step", "5000", "segment.step (1000) must be between "
                + "segment.min-step (5000) and segment.max-step (1000000)"},
        };
        for (String[] c : cases) {
            Cli.Result r = Cli.run("serve", c[0], c[1], "--http-port", "0", "--grpc-port", "0",
                    "--bind", "127.0.0.1", "--data-dir", tmp.toString());

            assertThat(r.exitCode()).as(c[0] + " " + c[1] + ": " + r.err())
                    .isEqualTo(Main.USAGE);
            assertThat(r.err()).as(c[0]).contains(c[2]);
        }
        Cli.Result env = Cli.run(Map.of("IDMINT_SEGMENT_STEP", "ten"), "serve", "--data-dir",
                tmp.toString());
        assertThat(env.exitCode()).isEqualTo(Main.USAGE);
        assertThat(env.err()).contains("segment.step 'ten' (from environment variable "
                + "IDMINT_SEGMENT_STEP)");
    }

    @Test
    void portTaken_exits1_andReleasesTheWorker() throws IOException {
        String data = tmp.resolve("data").toString();
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Cli.Result r = Cli.run("serve", "--http-port", Integer.toString(taken.getLocalPort()),
                    "--grpc-port", "0", "--bind", "127.0.0.1", "--data-dir", data);

            assertThat(r.exitCode()).as(r.err()).isEqualTo(Main.FAILURE);
            assertThat(r.err()).contains("cannot listen for HTTP on 127.0.0.1:"
                    + taken.getLocalPort());
        }
        Cli.Result next = Cli.run("next", "--worker", "0", "--data-dir", data);
        assertThat(next.exitCode()).as(next.err()).isZero();
        assertThat(LAYOUT.decode(Long.parseLong(next.out().trim())).workerId()).isZero();
    }

    @Test
    void help_listsTheServerFlags() {
        Cli.Result r = Cli.run("serve", "--help");

        assertThat(r.exitCode()).isZero();
        assertThat(r.out()).contains("--http-port", "--grpc-port", "--bind", "--max-count",
                "--auth-token", "--auth-admin-token", "--rate-limit", "--shutdown-grace",
                "--registry", "--datacenter", "--layout", "--data-dir", "--config",
                "--segment-store", "--segment-step", "--segment-min-step", "--segment-max-step",
                "--segment-target-duration", "--segment-fetch-timeout", "--segment-auto-create");
    }

    // ---------------------------------------------------------------- helpers

    private record Running(Process process, int port, int grpcPort, int worker, Http http,
            Path stderr) {
    }

    private Running start(Path data, String name, String... jvmOptions) throws Exception {
        return start(data, name, List.of(jvmOptions), List.of());
    }

    private Running start(Path data, String name, List<String> jvmOptions,
            List<String> serveArgs) throws Exception {
        Path stderr = tmp.resolve(name + ".stderr");
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"),
                "bin", "java").toString()));
        command.addAll(jvmOptions);
        command.addAll(List.of("-jar", jar.toString(), "serve", "--http-port", "0",
                "--grpc-port", "0", "--bind", "127.0.0.1", "--data-dir", data.toString()));
        command.addAll(serveArgs);
        Process p = new ProcessBuilder(command).redirectError(stderr.toFile()).start();
        processes.add(p);
        BlockingQueue<String> lines = ChildProcess.stdoutLines(p, "serve");
        String banner = lines.poll(30, TimeUnit.SECONDS);
        assertThat(banner).as("banner; stderr: %s", Files.readString(stderr)).isNotNull();
        Matcher m = BANNER.matcher(banner);
        assertThat(m.matches()).as(banner).isTrue();
        int port = Integer.parseInt(m.group(1));
        return new Running(p, port, Integer.parseInt(m.group(2)),
                Integer.parseInt(m.group(3)), new Http(port), stderr);
    }

    /** SIGTERM, then the exit code, which must come within a few seconds. */
    private static int stop(Running r) throws InterruptedException {
        r.process.destroy();
        assertThat(r.process.waitFor(10, TimeUnit.SECONDS)).as("exited after SIGTERM").isTrue();
        return r.process.exitValue();
    }

    /** {@code batches} of 1000 IDs and one single ID, in the order received. */
    private static List<Long> fetch(Http http, int batches) {
        List<Long> ids = new ArrayList<>();
        for (int i = 0; i < batches; i++) {
            for (Object o : (List<?>) http.get("/v1/ids?count=1000").json().get("ids")) {
                ids.add(Long.parseLong((String) o));
            }
        }
        ids.add(Long.parseLong((String) http.get("/v1/id").json().get("id")));
        return ids;
    }

    /**
     * Asks for batches of 100 until the server stops answering. A connection refused or closed
     * ends the loop; any answer that is not a 200 with 100 IDs is a failure.
     */
    private static void hammer(int port, List<Long> ids, List<String> failures,
            AtomicBoolean stopped) {
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(2)).build();
        HttpRequest req = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port
                + "/v1/ids?count=100")).timeout(Duration.ofSeconds(10)).build();
        while (!stopped.get()) {
            HttpResponse<String> r;
            try {
                r = client.send(req, HttpResponse.BodyHandlers.ofString());
            } catch (IOException e) {
                return;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            List<?> batch = r.statusCode() == 200
                    ? (List<?>) Http.object(r.body()).get("ids") : List.of();
            if (batch.size() != 100) {
                failures.add(r.statusCode() + " " + r.body());
                return;
            }
            batch.forEach(o -> ids.add(Long.parseLong((String) o)));
        }
    }

    private static List<Long> grpcIds(int port, int count) throws InterruptedException {
        ManagedChannel channel = ManagedChannelBuilder.forAddress("127.0.0.1", port)
                .usePlaintext().build();
        try {
            return IdServiceGrpc.newBlockingStub(channel).withDeadlineAfter(10, TimeUnit.SECONDS)
                    .nextIds(NextIdsRequest.newBuilder().setCount(count).build()).getIdsList();
        } finally {
            channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
    }

    private static long hwm(Path state) throws IOException {
        Matcher m = Pattern.compile("(?m)^hwm=(\\d+)$").matcher(Files.readString(state));
        assertThat(m.find()).isTrue();
        return Long.parseLong(m.group(1));
    }
}

package io.idmint.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.netty.NettyChannelBuilder;
import io.idmint.grpc.v1.DecodeRequest;
import io.idmint.grpc.v1.IdServiceGrpc;
import io.idmint.grpc.v1.NextCodesRequest;
import io.idmint.grpc.v1.NextFencedUuidsRequest;
import io.idmint.grpc.v1.NextFlakesRequest;
import io.idmint.grpc.v1.NextIdsRequest;
import io.idmint.grpc.v1.NextObjectIdsRequest;
import io.idmint.grpc.v1.NextSegmentIdsRequest;
import io.idmint.grpc.v1.NextSerialsRequest;
import io.idmint.grpc.v1.NextTypedIdsRequest;
import io.idmint.grpc.v1.NextUuidsRequest;
import io.idmint.grpc.v1.StreamIdsRequest;
import io.idmint.server.harness.Http;
import io.idmint.server.harness.IdmintProcesses;
import io.idmint.testkit.Alone;
import io.idmint.testkit.TestTime;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The attack suite: a real {@code serve} process tried as a hostile (or merely buggy) caller
 * would (docs/http-grpc.md, "Limits and abuse"). Each test performs one attack and asserts the
 * outcome: what a well-behaved caller still gets, the lease, the process's memory, the metric
 * that counted the refusals, and a log without a line per request.
 *
 * <p>The suite runs a short form ({@value #SHORT_CONNECTIONS} idle connections,
 * {@value #SHORT_CALLS} unread gRPC calls of each kind); {@code scripts/attack} runs the long
 * one ({@code -Didmint.attack=full}: 20,000 of each). The idle connections are held by
 * processes of their own, so no one process's file limit bounds the attack.
 */
@Alone
class AbuseIT {

    private static final int SHORT_CONNECTIONS = 6000;
    private static final int SHORT_CALLS = 2000;
    private static final boolean FULL = "full".equals(System.getProperty("idmint.attack"));
    private static final int CONNECTIONS = FULL ? 20_000 : SHORT_CONNECTIONS;
    private static final int CALLS = FULL ? 20_000 : SHORT_CALLS;
    private static final int HOLDER_CONNECTIONS = 5000;
    private static final Pattern RSS = Pattern.compile("VmRSS:\\s+(\\d+) kB");
    private static final Pattern GC_PAUSE = Pattern.compile(" Pause .* ([0-9.]+)ms$");
    private static final long MIB = 1024 * 1024;

    @TempDir
    static Path tmp;

    private static IdmintProcesses processes;
    private static IdmintProcesses.Node node;
    private static Path gcLog;

    @BeforeAll
    static void start() throws Exception {
        // The runtime as shipped: its pauses and memory are what the attacks measure.
        // The collector's own log (one line a collection, written as it ends) gives the pauses
        // of one test; the jvm_gc_pause_seconds_max of /metrics is a maximum over minutes.
        gcLog = tmp.resolve("gc.log");
        List<String> options = new ArrayList<>(IdmintProcesses.AS_SHIPPED);
        options.add("-Xlog:gc:file=" + gcLog);
        // Ahead of this JVM, the attacker, which a real server would not share its cores with.
        processes = new IdmintProcesses(tmp).jvmOptions(options).aheadOfCallers();
        node = processes.serve("target", Map.of(), "--segment-auto-create", "true",
                "--segment-max-tags", "50", "--codes-dev", "true", "--flake-worker", "7");
        node.awaitReady(Duration.ofSeconds(30));
        // What start-up made is in the old generation before any caller comes, so young pauses
        // do not copy it over and over (docs/operations.md, "Runtime").
        assertThat(Files.readString(gcLog)).as("serve's collection once its claim answered")
                .containsOnlyOnce("Pause Full (System.gc())");
        // Warm up every path the attacks take (the JIT, the heap at its working size), and
        // bind the JVM meters (the first scrape).
        for (int round = 0; round < 3; round++) {
            List<SocketChannel> warm = new ArrayList<>();
            for (int i = 0; i < 1000; i++) {
                warm.add(connect());
            }
            for (int i = 0; i < 300; i++) {
                probe("/health/live");
                probe("/v1/id");
            }
            for (SocketChannel c : warm) {
                c.close();
            }
        }
        node.http.get("/metrics");
    }

    @AfterAll
    static void stop() throws InterruptedException {
        if (processes != null) {
            processes.close();
        }
    }

    /** Where the log stood when the running test began. */
    private int logMark;
    /**
     * The server's resident memory when the running test began: warmed up, idle, and as the
     * tests before left it (the heap keeps the size it grew to).
     */
    private long idleRss;

    @BeforeEach
    void mark() throws IOException {
        logMark = node.stderr().length();
        idleRss = rss();
    }

    @Test
    void idleSlowAndUnfinishedConnections_neitherStarveCallersNorTheLease() throws Exception {
        List<SocketChannel> held = new ArrayList<>();
        List<Process> holders = new ArrayList<>();
        double closedBefore = closedByTheServer(node.http.get("/metrics").body());
        try {
            // Slowloris: heads never finished; bodies announced and never sent (chunked, and
            // a Content-Length longer than what comes); then plain idle connections.
            List<String> partial = List.of("GET /v1/id HTTP/1.1\r\nHost: x\r\nX-a: ",
                    "POST /api/v1/segments HTTP/1.1\r\nHost: x\r\nContent-Type: application/json"
                            + "\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{\"ta",
                    "POST /api/v1/segments HTTP/1.1\r\nHost: x\r\nContent-Length: 900\r\n\r\n{",
                    "GET /v1/id HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nabc");
            for (int i = 0; i < 400; i++) {
                SocketChannel c = connect();
                c.write(java.nio.ByteBuffer.wrap(partial.get(i % partial.size())
                        .getBytes(StandardCharsets.US_ASCII)));
                held.add(c);
            }
            // Held by processes of their own, 5,000 each: no file limit of one process (this
            // JVM's included) bounds the attack.
            for (int left = CONNECTIONS; left > 0; left -= HOLDER_CONNECTIONS) {
                holders.add(hold(Math.min(left, HOLDER_CONNECTIONS)));
            }
            // While they are held: a well-behaved caller on a new connection each time.
            List<Long> live = new ArrayList<>();
            List<Long> ids = new ArrayList<>();
            for (int i = 0; i < 200; i++) {
                live.add(probe("/health/live"));
                ids.add(probe("/v1/id"));
            }
            System.out.printf("AbuseIT connections: %d held, /health/live p99 %d ms, /v1/id p99 "
                    + "%d ms, RSS +%d MiB%n", CONNECTIONS + 400, p99(live), p99(ids),
                    (rss() - idleRss) / MIB);
            assertThat(p99(live)).as("/health/live p99 (ms) under %d held connections: %s",
                    CONNECTIONS, live).isLessThanOrEqualTo(50);
            assertThat(p99(ids)).as("/v1/id p99 (ms): %s", ids).isLessThanOrEqualTo(50);
            assertThat(state()).as("the lease under the attack").isEqualTo("ACTIVE");
            assertThat(rss() - idleRss).as("RSS growth (bytes) over idle %d MiB",
                    idleRss / MIB).isLessThanOrEqualTo(64 * MIB);
            // A holder's connect returns once the kernel has the connection; the server takes
            // it from the accept queue a little later, and closes one to make room then (or
            // after idle-timeout, 30 s, when opening them all took longer).
            String[] metrics = new String[1];
            processes.await(Duration.ofSeconds(30), "the connections past the limit closed",
                    () -> {
                        metrics[0] = node.http.get("/metrics").body();
                        return closedByTheServer(metrics[0]) - closedBefore
                                >= CONNECTIONS + 400 - 4096 - 1;
                    }, () -> metrics[0].lines().filter(l -> l.startsWith("idmint_conn")).toList()
                            .toString());
            assertThat(gauge(metrics[0], "idmint_connections_open", "transport=\"http\""))
                    .isLessThanOrEqualTo(4096);
        } finally {
            for (SocketChannel c : held) {
                c.close();
            }
            for (Process p : holders) {
                p.destroyForcibly();
                p.waitFor(10, TimeUnit.SECONDS);
            }
        }
        assertQuietLog();
    }

    /** HTTP connections the server closed to make room or for idling. */
    private static double closedByTheServer(String metrics) {
        return counter(metrics, "idmint_connections_closed_total",
                "reason=\"evicted\",transport=\"http\"")
                + counter(metrics, "idmint_connections_closed_total",
                        "reason=\"idle\",transport=\"http\"");
    }

    /** The pauses (ms) the collector logged past {@code mark}, a length of {@link #gcLog}. */
    private static List<Double> gcPauses(long mark) throws IOException {
        byte[] log = Files.readAllBytes(gcLog);
        List<Double> pauses = new ArrayList<>();
        new String(log, (int) mark, log.length - (int) mark, StandardCharsets.US_ASCII).lines()
                .forEach(line -> {
                    Matcher m = GC_PAUSE.matcher(line);
                    if (m.find()) {
                        pauses.add(Double.parseDouble(m.group(1)));
                    }
                });
        return pauses;
    }

    /** Starts a process that opens {@code n} connections to the server and holds them. */
    private static Process hold(int n) throws IOException {
        Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java")
                .toString(), "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-cp",
                System.getProperty("java.class.path"), Holder.class.getName(),
                Integer.toString(node.port), Integer.toString(n))
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        String line = new java.io.BufferedReader(new java.io.InputStreamReader(
                p.getInputStream(), StandardCharsets.US_ASCII)).readLine();
        assertThat(line).as("a holder of %d connections", n).isEqualTo("held " + n);
        return p;
    }

    /**
     * Opens connections to 127.0.0.1:PORT and holds them without sending a byte: prints
     * {@code held N} once all are open, then holds them until its standard input ends (the
     * test kills it, or the test JVM dies and its end of the pipe closes: no holder outlives
     * the run).
     */
    static final class Holder {
        public static void main(String[] args) throws Exception {
            int port = Integer.parseInt(args[0]);
            List<SocketChannel> held = new ArrayList<>();
            for (int i = Integer.parseInt(args[1]); i > 0; i--) {
                held.add(SocketChannel.open(new InetSocketAddress("127.0.0.1", port)));
            }
            System.out.println("held " + held.size());
            System.out.flush();
            while (System.in.read() >= 0) {
                // Nothing is sent on stdin; its end is the signal.
            }
        }
    }

    @Test
    void pipelinedRequests_areAllAnsweredInOrder() throws Exception {
        int n = 2000;
        try (Socket s = new Socket("127.0.0.1", node.port)) {
            s.setSoTimeout(20_000);
            byte[] one = "GET /v1/ids?count=3 HTTP/1.1\r\nHost: x\r\n\r\n"
                    .getBytes(StandardCharsets.US_ASCII);
            OutputStream out = s.getOutputStream();
            byte[] all = new byte[one.length * n];
            for (int i = 0; i < n; i++) {
                System.arraycopy(one, 0, all, i * one.length, one.length);
            }
            Thread writer = new Thread(() -> {
                try {
                    out.write(all);
                    out.flush();
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
            writer.start();
            String text = readResponses(s.getInputStream(), n);
            writer.join(20_000);
            Matcher m = Pattern.compile("HTTP/1.1 200 ").matcher(text);
            int ok = 0;
            while (m.find()) {
                ok++;
            }
            assertThat(ok).as("200s for %d pipelined requests", n).isEqualTo(n);
            Matcher idm = Pattern.compile("\"(\\d+)\"").matcher(text);
            long last = 0;
            int count = 0;
            while (idm.find()) {
                long id = Long.parseLong(idm.group(1));
                assertThat(id).as("IDs increase across pipelined responses").isGreaterThan(last);
                last = id;
                count++;
            }
            assertThat(count).isEqualTo(3 * n);
        }
        assertQuietLog();
    }

    @Test
    void cleartextHttp2_isNotSpoken() throws Exception {
        try (Socket s = new Socket("127.0.0.1", node.port)) {
            s.setSoTimeout(5000);
            // The prior-knowledge preface, then an empty SETTINGS frame.
            s.getOutputStream().write("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\0\0\0\4\0\0\0\0\0"
                    .getBytes(StandardCharsets.ISO_8859_1));
            String answer = new String(s.getInputStream().readNBytes(13),
                    StandardCharsets.ISO_8859_1);
            assertThat(answer).as("no HTTP/2 SETTINGS frame, an HTTP/1 refusal")
                    .matches("HTTP/\\d\\.\\d [45]\\d\\d ");
        }
        try (Socket s = new Socket("127.0.0.1", node.port)) {
            s.setSoTimeout(5000);
            s.getOutputStream().write(("GET /v1/id HTTP/1.1\r\nHost: x\r\nConnection: Upgrade, "
                    + "HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMAAABkAAQAAP__"
                    + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            // The connection stays open (keep-alive): read up to the end of the JSON body.
            StringBuilder answer = new StringBuilder();
            InputStream in = s.getInputStream();
            for (int c = in.read(); c >= 0; c = in.read()) {
                answer.append((char) c);
                if (c == '}') {
                    break;
                }
            }
            assertThat(answer.toString()).as("the upgrade ignored").startsWith("HTTP/1.1 200 ")
                    .doesNotContain("101 Switching");
        }
    }

    @Test
    void unreadGrpcReplies_ofEveryCall_stayBounded() throws Exception {
        assertThat(node.http.send("POST", "/api/v1/serials",
                java.net.http.HttpRequest.BodyPublishers.ofString("{\"name\":\"abuse\","
                        + "\"template\":\"ABUSE-{counter:12}\",\"step\":100000}"),
                "Content-Type", "application/json").status()).isEqualTo(201);
        String before = node.http.get("/metrics").body();
        long gcLogMark = Files.size(gcLog);
        List<Call<?>> calls = List.of(
                new Call<>(IdServiceGrpc.getNextIdsMethod(),
                        NextIdsRequest.newBuilder().setCount(10_000).build()),
                new Call<>(IdServiceGrpc.getNextUuidsMethod(),
                        NextUuidsRequest.newBuilder().setCount(10_000).build()),
                new Call<>(IdServiceGrpc.getNextFencedUuidsMethod(),
                        NextFencedUuidsRequest.newBuilder().setCount(10_000).setPrefix("abuse")
                                .build()),
                new Call<>(IdServiceGrpc.getNextTypedIdsMethod(),
                        NextTypedIdsRequest.newBuilder().setCount(10_000).setPrefix("abuse")
                                .build()),
                new Call<>(IdServiceGrpc.getNextObjectIdsMethod(),
                        NextObjectIdsRequest.newBuilder().setCount(10_000).build()),
                new Call<>(IdServiceGrpc.getNextFlakesMethod(),
                        NextFlakesRequest.newBuilder().setCount(10_000).build()),
                new Call<>(IdServiceGrpc.getNextCodesMethod(),
                        NextCodesRequest.newBuilder().setCount(10_000).build()),
                new Call<>(IdServiceGrpc.getNextSegmentIdsMethod(),
                        NextSegmentIdsRequest.newBuilder().setTag("abuse").setCount(10_000)
                                .build()),
                new Call<>(IdServiceGrpc.getNextSegmentCodesMethod(),
                        NextSegmentIdsRequest.newBuilder().setTag("abuse").setCount(10_000)
                                .build()),
                new Call<>(IdServiceGrpc.getNextSerialsMethod(),
                        NextSerialsRequest.newBuilder().setName("abuse").setCount(8_000)
                                .build()),
                new Call<>(IdServiceGrpc.getStreamIdsMethod(),
                        StreamIdsRequest.newBuilder().setCount(1_000_000).build()),
                new Call<>(IdServiceGrpc.getDecodeMethod(),
                        DecodeRequest.newBuilder().setId(1L << 40).build()));
        for (Call<?> call : calls) {
            List<ManagedChannel> channels = new ArrayList<>();
            AtomicInteger closed = new AtomicInteger();
            AtomicInteger refused = new AtomicInteger();
            try {
                for (int c = 0; c < CALLS / 100; c++) {
                    // A window of 1 KiB the client never returns: every reply past it waits in
                    // the server, which is what a client that never reads makes it do.
                    ManagedChannel ch = NettyChannelBuilder.forAddress("127.0.0.1", node.grpcPort)
                            .usePlaintext().flowControlWindow(1024).build();
                    channels.add(ch);
                    for (int i = 0; i < 100; i++) {
                        call.startUnread(ch, closed, refused);
                    }
                }
                awaitSettled(call.name(), () -> closed.get() + " closed, "
                        + gauge(node.http.get("/metrics").body(), "idmint_grpc_buffered_bytes",
                        null) + " bytes held");
                System.out.printf("AbuseIT %s: %d closed, %d refused, %.0f bytes held, RSS +%d "
                        + "MiB%n", call.name(), closed.get(), refused.get(), gauge(node.http
                        .get("/metrics").body(), "idmint_grpc_buffered_bytes", null),
                        (rss() - idleRss) / MIB);
                assertThat(rss() - idleRss).as("%s: RSS growth over idle %d MiB with %d unread "
                        + "calls", call.name(), idleRss / MIB, CALLS)
                        .isLessThanOrEqualTo(256 * MIB);
                assertThat(state()).as("the lease").isEqualTo("ACTIVE");
                assertThat(probe("/v1/id")).isLessThan(1000);
            } finally {
                for (ManagedChannel ch : channels) {
                    ch.shutdownNow();
                }
                for (ManagedChannel ch : channels) {
                    ch.awaitTermination(10, TimeUnit.SECONDS);
                }
            }
            processes.await(Duration.ofSeconds(30), "reservations given back after " + call.name(),
                    () -> gauge(node.http.get("/metrics").body(), "idmint_grpc_buffered_bytes",
                            null) == 0, () -> "");
        }
        String after = node.http.get("/metrics").body();
        assertThat(counter(after, "idmint_limit_refusals_total", "limit=\"grpc_buffered\"")
                - counter(before, "idmint_limit_refusals_total", "limit=\"grpc_buffered\""))
                .as("calls refused for want of room").isGreaterThan(0);
        List<Double> pauses = gcPauses(gcLogMark);
        System.out.printf("AbuseIT gRPC: %d GC pauses, the longest %.1f ms%n", pauses.size(),
                pauses.stream().mapToDouble(Double::doubleValue).max().orElse(0));
        assertThat(pauses).as("GC pauses (ms) during the calls").isNotEmpty()
                .allSatisfy(ms -> assertThat(ms).isLessThanOrEqualTo(100));
        assertQuietLog();
    }

    @Test
    void newSegmentTags_areCappedWithTheirMetrics() throws Exception {
        int created = 0;
        int refused = 0;
        for (int i = 0; i < 200; i++) {
            Http.Response r = node.http.get("/api/v1/segments/spray-" + i + "/ids");
            if (r.status() == 200) {
                created++;
            } else {
                assertThat(r.status()).as(r.body()).isEqualTo(429);
                assertThat(r.body()).contains("segment.max-tags");
                refused++;
            }
        }
        assertThat(created).as("tags served, with the one the gRPC attack may have made")
                .isBetween(49, 50);
        assertThat(refused).isEqualTo(200 - created);
        String metrics = node.http.get("/metrics").body();
        assertThat(metrics.lines().filter(l -> l.startsWith("idmint_segment_ids_served_total"))
                .count()).isLessThanOrEqualTo(50);
        assertThat(counter(metrics, "idmint_limit_refusals_total", "limit=\"segment_tags\""))
                .isGreaterThanOrEqualTo(refused);
        assertQuietLog();
    }

    // ---------------------------------------------------------------------------- helpers

    /** One RPC and its request, started by a client that never reads the reply. */
    private record Call<Q>(MethodDescriptor<Q, ?> method, Q request) {
        String name() {
            return method.getBareMethodName();
        }

        void startUnread(ManagedChannel ch, AtomicInteger closed, AtomicInteger refused) {
            start(ch.newCall(method, CallOptions.DEFAULT), closed, refused);
        }

        private <R> void start(ClientCall<Q, R> call, AtomicInteger closed,
                AtomicInteger refused) {
            call.start(new ClientCall.Listener<>() {
                @Override
                public void onClose(Status status, Metadata trailers) {
                    closed.incrementAndGet();
                    if (status.getCode() == Status.Code.UNAVAILABLE) {
                        refused.incrementAndGet();
                    }
                }
            }, new Metadata());
            // No request(n): the reply is never read, so its window is never returned.
            call.sendMessage(request);
            call.halfClose();
        }
    }

    /**
     * Waits until the attack has settled: the same {@code state} (calls closed, bytes held)
     * three times in a row, half a second apart, so every call sent has been answered, refused
     * or is holding its reply.
     */
    private static void awaitSettled(String what, Supplier<String> state)
            throws InterruptedException {
        long deadline = TestTime.deadline(Duration.ofSeconds(90));
        String last = null;
        int same = 0;
        while (same < 3) {
            assertThat(System.nanoTime()).as("%s settled within 90 s; last: %s", what, last)
                    .isLessThan(deadline);
            Thread.sleep(500);
            String now = state.get();
            same = now.equals(last) ? same + 1 : 0;
            last = now;
        }
    }

    private static SocketChannel connect() throws IOException {
        SocketChannel c = SocketChannel.open();
        c.connect(new InetSocketAddress("127.0.0.1", node.port));
        return c;
    }

    /** One request on a new connection; its time to the whole response, in ms. */
    private static long probe(String path) throws IOException {
        long start = System.nanoTime();
        try (Socket s = new Socket("127.0.0.1", node.port)) {
            s.setSoTimeout(5000);
            s.getOutputStream().write(("GET " + path + " HTTP/1.1\r\nHost: x\r\nConnection: close"
                    + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            String response = new String(s.getInputStream().readAllBytes(),
                    StandardCharsets.US_ASCII);
            assertThat(response).as(path).startsWith("HTTP/1.1 200 ");
        }
        return (System.nanoTime() - start) / 1_000_000;
    }

    private static long p99(List<Long> millis) {
        long[] sorted = millis.stream().mapToLong(Long::longValue).sorted().toArray();
        return sorted[(int) Math.ceil(sorted.length * 0.99) - 1];
    }

    private static String readResponses(InputStream in, int n) throws IOException {
        StringBuilder text = new StringBuilder();
        byte[] buf = new byte[1 << 16];
        int seen = 0;
        while (seen < n) {
            int r = in.read(buf);
            if (r < 0) {
                break;
            }
            String chunk = new String(buf, 0, r, StandardCharsets.US_ASCII);
            text.append(chunk);
            seen = count(text, "HTTP/1.1 ");
        }
        return text.toString();
    }

    private static int count(CharSequence text, String what) {
        int n = 0;
        for (int i = text.toString().indexOf(what); i >= 0;
                i = text.toString().indexOf(what, i + 1)) {
            n++;
        }
        return n;
    }

    private static String state() {
        return String.valueOf(node.ready().json().get("state"));
    }

    /** The server's resident memory, in bytes. */
    private static long rss() throws IOException {
        Matcher m = RSS.matcher(Files.readString(Path.of("/proc/" + node.pid() + "/status")));
        assertThat(m.find()).isTrue();
        return Long.parseLong(m.group(1)) * 1024;
    }

    /** The sum of a counter's samples whose labels contain {@code labels} (null: all). */
    private static double counter(String metrics, String name, String labels) {
        return metrics.lines().filter(l -> l.startsWith(name + "{") || l.startsWith(name + " "))
                .filter(l -> labels == null || l.contains(labels))
                .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)))
                .sum();
    }

    /** The largest sample of a gauge whose labels contain {@code labels} (null: all). */
    private static double gauge(String metrics, String name, String labels) {
        return metrics.lines().filter(l -> l.startsWith(name + "{") || l.startsWith(name + " "))
                .filter(l -> labels == null || l.contains(labels))
                .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)))
                .max().orElse(0);
    }

    /** The test's log holds no stack trace and no warning or error line per request. */
    private void assertQuietLog() {
        String log = node.stderr().substring(logMark);
        List<String> loud = log.lines().filter(l -> l.startsWith("\tat ")
                || l.contains(" WARN ") || l.contains(" ERROR ")).toList();
        assertThat(loud).as("warnings, errors and stack frames in the log").hasSizeLessThan(10);
    }
}

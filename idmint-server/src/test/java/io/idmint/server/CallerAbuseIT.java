package io.idmint.server;

import static io.idmint.server.HttpApiIT.assertProblem;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.MetadataUtils;
import io.idmint.grpc.v1.IdServiceGrpc;
import io.idmint.grpc.v1.NextIdsRequest;
import io.idmint.server.grpc.GrpcApi;
import io.idmint.server.harness.Http;
import io.idmint.server.harness.TestServers;
import io.idmint.server.ops.Logs;
import io.idmint.testkit.Alone;
import io.idmint.testkit.TestTime;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import java.util.function.Supplier;
import java.util.logging.Handler;
import java.util.logging.Logger;
import java.util.logging.StreamHandler;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a hostile client tries (issue 29): a rate limit dodged with made-up tokens or many source
 * addresses, lines forged into the logs, two tokens at once, and error details that echo the
 * request or name the code. Each against a real in-process server, over HTTP and gRPC.
 */
@Alone
class CallerAbuseIT {

    private static final String API = "api-secret";
    private static final String ADMIN = "admin-secret";
    private static final int LIMIT = 10_000;
    private static final int PER_CALL = 1000;
    /** The last request of each forgery. */
    private static final String END = "/end-of-forgery";
    /** How long each attack runs. */
    private static final long ATTACK_NANOS = TimeUnit.SECONDS.toNanos(3);
    /** A text line the server wrote: its timestamp, a level, a logger. */
    private static final Pattern TEXT_LINE = Pattern.compile(
            "\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d(:\\d\\d(\\.\\d+)?)?Z (ERROR|WARN|INFO|DEBUG|TRACE)"
                    + " [^ ]+: .*");

    @TempDir
    Path tmp;

    private final List<AutoCloseable> resources = new ArrayList<>();
    private final Map<Server, ManagedChannel> channels = new ConcurrentHashMap<>();

    @AfterEach
    void stop() throws Exception {
        for (int i = resources.size() - 1; i >= 0; i--) {
            resources.get(i).close();
        }
    }

    @Test
    void v1Id_adminTokenOnlyWithARateLimit_answersIds() {
        Server server = start("admin-only", "auth.admin-token=" + ADMIN, "rate-limit=" + LIMIT);

        Http.Response r = new Http(server.httpPort()).get("/v1/id");
        assertThat(r.status()).as(r.body()).isEqualTo(200);
        assertThat(blocking(server).nextIds(next(1)).getIdsCount()).isEqualTo(1);
        assertThat(blocking(server, "Bearer " + ADMIN).nextIds(next(1)).getIdsCount())
                .isEqualTo(1);
    }

    @Test
    void rateLimit_inventedTokensOverHttp_neverPassTheLimit() {
        for (String[] auth : new String[][] {{"auth.admin-token=" + ADMIN}, {}}) {
            Server server = start("tokens-" + auth.length, limited(auth));
            Http http = new Http(server.httpPort());

            long got = attack(i -> http.get("/v1/ids?count=" + PER_CALL, "Authorization",
                    "Bearer invented-" + i).status());

            assertWithinLimit(got, "HTTP, invented tokens, " + String.join(",", auth));
            assertThat(http.get("/metrics").body())
                    .contains("idmint_http_requests_total{route=\"/v1/ids\",status=\"429\"}");
        }
    }

    @Test
    void rateLimit_manySourceAddressesOverHttp_shareOneAllowance() throws IOException {
        for (String[] auth : new String[][] {{"auth.admin-token=" + ADMIN}, {}}) {
            Server server = start("addresses-" + auth.length, limited(auth));
            List<Raw> clients = new ArrayList<>();
            for (int a = 1; a <= 20; a++) {
                Raw raw = new Raw("127.0.0." + a, server.httpPort());
                resources.add(raw);
                clients.add(raw);
            }

            long got = attack(i -> clients.get(i % clients.size())
                    .send("GET /v1/ids?count=" + PER_CALL + " HTTP/1.1\r\nHost: x\r\n\r\n")
                    .status());

            assertWithinLimit(got, "HTTP, 20 source addresses, " + String.join(",", auth));
        }
    }

    @Test
    void rateLimit_inventedTokensOverGrpc_neverPassTheLimit() {
        Server server = start("grpc", limited("auth.admin-token=" + ADMIN));
        blocking(server);

        long got = attack(i -> {
            try {
                return blocking(server, "Bearer invented-" + i).nextIds(next(PER_CALL))
                        .getIdsCount() == PER_CALL ? 200 : 500;
            } catch (StatusRuntimeException e) {
                assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
                return 429;
            }
        });

        assertWithinLimit(got, "gRPC, invented tokens");
        assertThat(new Http(server.httpPort()).get("/metrics").body()).contains(
                "idmint_grpc_requests_total{code=\"RESOURCE_EXHAUSTED\",method=\"NextIds\"}");
    }

    @Test
    void twoAuthorizations_areRefusedBeforeAnythingIsMinted() {
        Server server = start("two", "auth.token=" + API, "auth.admin-token=" + ADMIN);
        Http http = new Http(server.httpPort());
        long issued = issued(http);

        assertProblem(http.get("/v1/ids?count=5", "Authorization", "Bearer " + API,
                "Authorization", "Bearer " + ADMIN), 400, "more than one Authorization header");
        StatusRuntimeException e = catchThrowableOfType(() -> blocking(server, "Bearer " + API,
                "Bearer " + ADMIN).nextIds(next(5)), StatusRuntimeException.class);

        assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
        assertThat(e.getStatus().getDescription()).contains("more than one Authorization");
        assertThat(issued(http)).isEqualTo(issued);
    }

    @Test
    void malformedRequest_detailNeverEchoesTheRequest() throws IOException {
        Server server = start("malformed", "auth.token=" + API);
        String[] requests = {
            "GET /v1/id HTTP/1.1 " + API + "\r\nHost: x\r\n\r\n",
            "GET /v1/id?t=" + API + " HTTQ/1.1\r\nHost: x\r\n\r\n",
            "GET /v1/id HTTP/1.1\r\nHost: x\r\nAuthorization : Bearer " + API + "\r\n\r\n",
            "GET /v1/id HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + API + "\r\n"
                    + "Bad\u0001Header: " + API + "\r\n\r\n",
            "GET /v1/id HTTP/1.1\r\nHost: x\r\nAuthorization Bearer " + API + "\r\n\r\n",
            "GET /v1/id HTTP/1.1\r\nHost: x\r\nContent-Length: " + API + "\r\n\r\n",
        };
        java.util.Set<String> details = new java.util.TreeSet<>();
        for (String request : requests) {
            try (Raw raw = new Raw("127.0.0.1", server.httpPort())) {
                Raw.Response r = raw.send(request);

                // What the decoder lets through is answered as any request: 401, no token;
                // an unknown HTTP version is Vert.x's 501.
                assertThat(r.status()).as(r.body()).isIn(400, 401, 501);
                assertThat(r.body()).as(request).doesNotContain(API);
                if (r.status() == 400) {
                    details.add((String) Http.object(r.body()).get("detail"));
                }
            }
        }
        assertThat(details).containsExactly("malformed request: invalid header line",
                "malformed request: invalid request line");
    }

    @Test
    void forgedLines_authOn_accessLogInTheServerLog_everyLineIsTheServers() throws Exception {
        Captured log = capture();
        Server server = start("forge-on", "auth.token=" + API, "log.access=on");

        forge(server, "Bearer " + API);

        await(() -> log.text().contains(END) && log.json().contains(END), "the access lines",
                log::text);
        assertServerLines(log.text(), log.json());
    }

    @Test
    void forgedLines_authOff_accessLogFiles_everyLineIsTheServers() throws Exception {
        Captured log = capture();
        Path text = tmp.resolve("access.log");
        Path json = tmp.resolve("access.json");
        Server a = start("forge-text", "log.access=" + text);
        Server b = start("forge-json", "log.access=" + json, "log.format=json");

        forge(a, null);
        forge(b, null);

        await(() -> read(text).contains(END) && read(json).contains(END), "the access files",
                () -> read(text) + read(json));
        assertServerLines(read(text) + log.text(), read(json) + log.json());
    }

    // ---------------------------------------------------------------- Helpers

    private Server start(String name, String... settings) {
        Server server = TestServers.start(tmp.resolve(name), settings);
        resources.add(server);
        return server;
    }

    private static String[] limited(String... auth) {
        List<String> s = new ArrayList<>(List.of(auth));
        s.add("rate-limit=" + LIMIT);
        s.add("max-count=" + PER_CALL);
        return s.toArray(String[]::new);
    }

    /**
     * Calls {@code call} (numbered from 0) from two threads for {@link #ATTACK_NANOS}.
     *
     * @return the IDs received: {@link #PER_CALL} per call answered 200
     */
    private static long attack(IntFunction<Integer> call) {
        long[] ok = new long[2];
        long deadline = System.nanoTime() + ATTACK_NANOS;
        List<Thread> threads = new ArrayList<>();
        List<Throwable> failed = new java.util.concurrent.CopyOnWriteArrayList<>();
        for (int t = 0; t < 2; t++) {
            int me = t;
            Thread thread = new Thread(() -> {
                try {
                    for (int i = me; System.nanoTime() < deadline; i += 2) {
                        int status = call.apply(i);
                        assertThat(status).as("call " + i).isIn(200, 429);
                        if (status == 200) {
                            ok[me]++;
                        }
                    }
                } catch (Throwable e) {
                    failed.add(e);
                }
            });
            thread.start();
            threads.add(thread);
        }
        threads.forEach(CallerAbuseIT::join);
        assertThat(failed).isEmpty();
        return (ok[0] + ok[1]) * PER_CALL;
    }

    /**
     * A token bucket of one second passes at most the limit times the seconds, plus the one
     * second it starts full with; 10% on top for the attack's own timing.
     */
    private static void assertWithinLimit(long got, String attack) {
        double seconds = ATTACK_NANOS / 1e9;
        assertThat(got).as(attack).isLessThanOrEqualTo((long) (1.1 * LIMIT * (seconds + 1)))
                .isGreaterThanOrEqualTo(LIMIT);
    }

    private static void join(Thread t) {
        try {
            t.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    /** A stub on the server's one channel, sending {@code tokens} (null: none) with each call. */
    private IdServiceGrpc.IdServiceBlockingStub blocking(Server server, String... tokens) {
        ManagedChannel channel = channels.computeIfAbsent(server, s -> {
            ManagedChannel c = ManagedChannelBuilder.forAddress("127.0.0.1", s.grpcPort())
                    .usePlaintext().build();
            resources.add(c::shutdownNow);
            return c;
        });
        Metadata headers = new Metadata();
        for (String token : tokens) {
            if (token != null) {
                headers.put(GrpcApi.AUTHORIZATION, token);
            }
        }
        return IdServiceGrpc.newBlockingStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS)
                .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(headers));
    }

    private static NextIdsRequest next(int count) {
        return NextIdsRequest.newBuilder().setCount(count).build();
    }

    private static long issued(Http http) {
        return (Long) http.get("/api/v1/status").json().get("ids_issued");
    }

    /**
     * Sends requests whose path and count hold line feeds, carriage returns, a terminal escape,
     * U+2028 and NEL, percent-encoded and raw; each answered 400, 401 or 404. Then a request
     * for {@link #END}: once its access line is written, so are theirs.
     */
    private static void forge(Server server, String authorization) throws IOException {
        String forged = "2026-01-01T00:00:00Z WARN io.idmint.server.events: worker lease "
                + "ACTIVE -> LOST FORGED";
        String encoded = forged.replace(" ", "%20").replace(">", "%3E");
        String[] payloads = {"%0a", "%0d", "%0d%0a", "%1b%5b31m", "%e2%80%a8", "%c2%85"};
        Http http = new Http(server.httpPort());
        for (String p : payloads) {
            for (String path : new String[] {"/v1/ids?count=1" + p + encoded,
                "/v1/id" + p + encoded}) {
                String[] headers = authorization == null ? new String[0]
                        : new String[] {"Authorization", authorization};
                assertThat(http.get(path, headers).status()).as(path).isIn(400, 401, 404);
                assertThat(http.get(path).status()).as(path).isIn(400, 401, 404);
            }
        }
        String[] raw = {"/v1/id\u001b[31m" + forged.replace(' ', '_'),
            "/v1/ids?count=1\u001b]0;title\u0007", "/v1/id\u00e2\u0080\u00a8FORGED"};
        for (String path : raw) {
            try (Raw r = new Raw("127.0.0.1", server.httpPort())) {
                assertThat(r.send("GET " + path + " HTTP/1.1\r\nHost: x\r\n\r\n").status())
                        .as(path).isIn(400, 401, 404);
            }
        }
        assertThat(http.get(END).status()).isEqualTo(404);
    }

    /** Every line one the server wrote: text lines by their prefix, JSON lines as objects. */
    private static void assertServerLines(String text, String json) {
        assertThat(text).contains("request").contains("FORGED");
        for (String line : text.split("\n", -1)) {
            if (line.isEmpty()) {
                continue;
            }
            assertThat(TEXT_LINE.matcher(line).matches() || line.startsWith("\t"))
                    .as("a text line the server did not write: %s", line).isTrue();
            assertNoControl(line);
            assertThat(line).doesNotStartWith("2026-01-01T00:00:00Z");
        }
        assertThat(json).contains("FORGED");
        for (String line : json.split("\n", -1)) {
            if (line.isEmpty()) {
                continue;
            }
            assertNoControl(line);
            assertThat(Http.object(line)).as(line).containsKeys("ts", "level", "logger", "msg");
        }
    }

    private static void assertNoControl(String line) {
        for (int i = 0; i < line.length(); i++) {
            char c = line.charAt(i);
            assertThat(Logs.isControl(c) && !(i == 0 && c == '\t'))
                    .as("U+%04X at %d in %s", (int) c, i, line).isFalse();
        }
    }

    /** The server log of this JVM, as text and as JSON lines, while the test runs. */
    private Captured capture() {
        Captured c = new Captured();
        Logger root = Logger.getLogger("");
        root.addHandler(c.textHandler);
        root.addHandler(c.jsonHandler);
        resources.add(() -> {
            root.removeHandler(c.textHandler);
            root.removeHandler(c.jsonHandler);
        });
        return c;
    }

    private static final class Captured {
        private final ByteArrayOutputStream textBytes = new ByteArrayOutputStream();
        private final ByteArrayOutputStream jsonBytes = new ByteArrayOutputStream();
        private final Handler textHandler = handler(textBytes, new Logs.TextFormat());
        private final Handler jsonHandler = handler(jsonBytes, new Logs.JsonFormat());

        private static Handler handler(OutputStream out, java.util.logging.Formatter f) {
            return new StreamHandler(new PrintStream(out, true, StandardCharsets.UTF_8), f) {
                @Override
                public synchronized void publish(java.util.logging.LogRecord r) {
                    super.publish(r);
                    flush();
                }
            };
        }

        String text() {
            synchronized (textHandler) {
                return textBytes.toString(StandardCharsets.UTF_8);
            }
        }

        String json() {
            synchronized (jsonHandler) {
                return jsonBytes.toString(StandardCharsets.UTF_8);
            }
        }
    }

    private static String read(Path file) {
        try {
            return Files.exists(file) ? Files.readString(file) : "";
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    private static void await(Supplier<Boolean> done, String what, Supplier<String> seen) {
        long deadline = TestTime.deadline(Duration.ofSeconds(10));
        while (!done.get()) {
            assertThat(System.nanoTime()).as("waiting for %s; seen:%n%s", what, seen.get())
                    .isLessThan(deadline);
            java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
        }
    }

    /** HTTP/1.1 over a socket bound to a chosen local address, with the request's raw bytes. */
    private static final class Raw implements AutoCloseable {
        private final Socket socket = new Socket();
        private final InputStream in;
        private final OutputStream out;

        record Response(int status, String body) {
        }

        Raw(String local, int port) throws IOException {
            socket.bind(new InetSocketAddress(local, 0));
            socket.connect(new InetSocketAddress("127.0.0.1", port), 5000);
            socket.setSoTimeout(10_000);
            in = socket.getInputStream();
            out = socket.getOutputStream();
        }

        /** Sends {@code request} (each char one byte) and reads one response. */
        Response send(String request) {
            try {
                out.write(request.getBytes(StandardCharsets.ISO_8859_1));
                out.flush();
                String status = line();
                int length = -1;
                for (String h = line(); !h.isEmpty(); h = line()) {
                    if (h.toLowerCase(Locale.ROOT).startsWith("content-length:")) {
                        length = Integer.parseInt(h.substring(15).trim());
                    }
                }
                byte[] body = length < 0 ? in.readAllBytes() : in.readNBytes(length);
                return new Response(Integer.parseInt(status.split(" ")[1]),
                        new String(body, StandardCharsets.UTF_8));
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }

        private String line() throws IOException {
            StringBuilder b = new StringBuilder();
            for (int c = in.read(); c != '\n'; c = in.read()) {
                if (c < 0) {
                    throw new IOException("connection closed after '" + b + "'");
                }
                if (c != '\r') {
                    b.append((char) c);
                }
            }
            return b.toString();
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }
}

package io.idmint.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.idmint.Layout;
import io.idmint.server.harness.TestServers;
import io.idmint.testkit.Alone;
import io.idmint.testkit.Poll;
import io.idmint.testkit.TestTime;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A batch larger than what one tick holds is finished a tick at a time, each tick waited for on
 * a worker thread, never on the event loop (docs/http-grpc.md, "Batches and the event loop"): the
 * loop keeps answering its other connections meanwhile, and the answer is recorded in the
 * metrics and the access log like any other, as are segment calls, also answered later.
 *
 * <p>The layout has 2 IDs a millisecond, so a batch of 3,000 takes 1.5 s of ticks.
 */
@Alone
class HttpEventLoopIT {

    private static final String SLOW_LAYOUT = "time=41,datacenter=5,worker=5,sequence=1";
    private static final int BATCH = 3_000;

    @TempDir
    static Path data;

    private static Server server;
    private static Path accessLog;

    @BeforeAll
    static void start() {
        accessLog = data.resolve("access.log");
        server = TestServers.start(data.resolve("node"), "layout=" + SLOW_LAYOUT,
                "log.access=" + accessLog, "log.format=json");
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
    }

    @Test
    void batchBeyondTheTick_othersOnEveryLoopAnswerAtOnce_theBatchComesWhole() throws Exception {
        assertThat(get("/health/live")).startsWith("HTTP/1.1 200"); // its first call warms up
        long begun = System.nanoTime();
        CompletableFuture<String> batch = CompletableFuture.supplyAsync(() -> get(
                "/v1/ids?count=" + BATCH));
        // The batch is on its loop, waiting for ticks, once its first tick's IDs are counted.
        Poll.until(Duration.ofSeconds(10), "the batch's first IDs counted",
                () -> get("/api/v1/status").matches("(?s).*\"ids_issued\":[1-9].*"));
        // Connections go to the loops in turn: twice as many as loops reach the batch's too.
        int loops = Runtime.getRuntime().availableProcessors();
        List<Long> millis = new ArrayList<>();
        for (int i = 0; i < 2 * loops; i++) {
            long t = System.nanoTime();
            assertThat(get("/health/live")).startsWith("HTTP/1.1 200");
            millis.add(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t));
        }
        assertThat(batch).as("still minting while the others were answered").isNotDone();

        String answer = batch.get(30, TimeUnit.SECONDS);
        long took = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - begun);
        assertThat(took).as("%d IDs at 2 a millisecond", BATCH).isGreaterThanOrEqualTo(1_400);
        assertThat(millis).as("each /health/live, ms, while the batch took %d ms", took)
                .allSatisfy(ms -> assertThat(ms).isLessThan(500));
        assertThat(answer).startsWith("HTTP/1.1 200");
        long[] ids = ids(answer);
        assertThat(ids).hasSize(BATCH);
        Layout layout = Layout.parse(SLOW_LAYOUT);
        for (int i = 1; i < ids.length; i++) {
            assertThat(ids[i]).as("ID %d", i).isGreaterThan(ids[i - 1]);
        }
        assertThat(layout.decode(ids[BATCH - 1]).timestampMillis()
                - layout.decode(ids[0]).timestampMillis()).isGreaterThanOrEqualTo(BATCH / 2 - 1);
    }

    @Test
    void pipelinedOnOneConnection_theRequestAfterAWaitingBatch_getsIdsAboveIt() throws Exception {
        try (Socket s = new Socket("127.0.0.1", server.httpPort())) {
            s.setSoTimeout(30_000);
            s.getOutputStream().write(("GET /v1/ids?count=" + BATCH + " HTTP/1.1\r\n"
                    + "Host: idmint\r\n\r\nGET /v1/id HTTP/1.1\r\nHost: idmint\r\n"
                    + "Connection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            s.getInputStream().transferTo(out);
            String both = out.toString(StandardCharsets.UTF_8);
            int second = both.indexOf("HTTP/1.1", 1);
            assertThat(second).as(both).isPositive();
            long[] batch = ids(both.substring(0, second));
            long[] single = ids(both.substring(second));
            assertThat(batch).hasSize(BATCH);
            assertThat(single).hasSize(1);
            assertThat(single[0]).isGreaterThan(batch[BATCH - 1]);
        }
    }

    @Test
    void answeredLater_batchesAndSegmentCalls_areInTheAccessLogAndMetrics() throws Exception {
        assertThat(get("/v1/ids?count=" + BATCH)).startsWith("HTTP/1.1 200");
        assertThat(get("/api/v1/ids?count=" + BATCH)).startsWith("HTTP/1.1 200");
        assertThat(get("/api/v1/segments/none/ids")).startsWith("HTTP/1.1 404");

        String[] expected = {"\"path\":\"/v1/ids\",\"status\":200",
            "\"path\":\"/api/v1/ids\",\"status\":200",
            "\"path\":\"/api/v1/segments/none/ids\",\"status\":404"};
        long deadline = TestTime.deadline(Duration.ofSeconds(10));
        String log = "";
        while (System.nanoTime() < deadline) {
            log = Files.exists(accessLog) ? Files.readString(accessLog) : "";
            String text = log;
            if (java.util.Arrays.stream(expected).allMatch(text::contains)) {
                break;
            }
            Thread.sleep(50);
        }
        assertThat(log).contains(expected);
        String metrics = get("/metrics");
        assertThat(metrics).containsPattern(
                "idmint_http_requests_total\\{[^}]*route=\"/v1/ids\"[^}]*status=\"200\"[^}]*}");
    }

    /** One request on a connection of its own; the whole answer, headers and body. */
    private static String get(String path) {
        try (Socket s = new Socket("127.0.0.1", server.httpPort())) {
            s.setSoTimeout(30_000);
            s.getOutputStream().write(("GET " + path + " HTTP/1.1\r\nHost: idmint\r\n"
                    + "Connection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            InputStream in = s.getInputStream();
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            in.transferTo(out);
            return out.toString(StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static long[] ids(String answer) {
        Matcher m = Pattern.compile("\"(\\d+)\"").matcher(answer);
        List<Long> ids = new ArrayList<>();
        while (m.find()) {
            ids.add(Long.parseLong(m.group(1)));
        }
        return ids.stream().mapToLong(Long::longValue).toArray();
    }
}

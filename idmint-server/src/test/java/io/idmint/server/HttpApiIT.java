package io.idmint.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.idmint.IdCodec;
import io.idmint.IdParts;
import io.idmint.Layout;
import io.idmint.server.harness.ChildProcess;
import io.idmint.server.harness.Http;
import io.idmint.server.harness.NodeTools;
import io.idmint.server.harness.TestServers;
import io.idmint.server.http.HttpApi;
import io.idmint.server.json.ApiJson;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The HTTP API of a real in-process server (started as {@code serve} starts it) on 127.0.0.1,
 * through a real HTTP/1.1 client: every endpoint as docs/http-grpc.md shows it and every error.
 */
class HttpApiIT {

    private static final int MAX = 10_000;
    private static final Layout LAYOUT = Layout.SNOWFLAKE;
    private static final String BAD_PARAMETER = "urn:idmint:problem:bad-parameter";
    private static final String MALFORMED_ID = "urn:idmint:problem:malformed-id";

    @TempDir
    static Path data;

    private static Server server;
    private static Http http;

    @BeforeAll
    static void start() {
        server = TestServers.start(data);
        http = new Http(server.httpPort());
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
    }

    // ---------------------------------------------------------------- lean API

    @Test
    void leanId_returnsOneIdAsAString() {
        Http.Response r = http.get("/v1/id");

        assertThat(r.status()).isEqualTo(200);
        assertThat(r.header("content-type")).isEqualTo("application/json");
        assertThat(r.header("cache-control")).isEqualTo("no-store");
        assertThat(r.body()).matches("\\{\"id\":\"[1-9][0-9]{0,18}\"}");
        IdParts p = LAYOUT.decode(Long.parseLong((String) r.json().get("id")));
        assertThat(p.workerId()).isZero();
        assertThat(p.datacenterId()).isZero();
    }

    @Test
    void leanIds_countDefaultsToOne() {
        assertThat(leanIds("/v1/ids")).hasSize(1);
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 500, MAX})
    void leanIds_count_returnsThatManyIncreasingStrings(int count) {
        List<String> ids = leanIds("/v1/ids?count=" + count);

        assertThat(ids).hasSize(count).doesNotHaveDuplicates();
        assertThat(ids.stream().map(Long::parseLong).toList()).isSorted();
    }

    @ParameterizedTest
    @ValueSource(strings = {"application/vnd.idmint.id64", "application/VND.idmint.id64; q=1",
        "application/vnd.idmint.id64, application/json"})
    void leanIds_askedForId64_are8ByteBigEndianIntegersInIncreasingOrder(String accept)
            throws Exception {
        HttpResponse<byte[]> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create(http.base() + "/v1/ids?count=" + MAX)).header("Accept", accept)
                .build(), HttpResponse.BodyHandlers.ofByteArray());

        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("content-type"))
                .contains("application/vnd.idmint.id64");
        assertThat(r.headers().firstValue("cache-control")).contains("no-store");
        assertThat(r.body()).hasSize(MAX * Long.BYTES);
        ByteBuffer body = ByteBuffer.wrap(r.body());
        long last = 0;
        for (int i = 0; i < MAX; i++) {
            long id = body.getLong();
            assertThat(id).as("ID %d of the body", i).isGreaterThan(last);
            assertThat(LAYOUT.decode(id).timestamp())
                    .isBetween(Instant.now().minusSeconds(60), Instant.now());
            last = id;
        }
    }

    @Test
    void leanIds_id64IsOnlyForV1Ids_andAnErrorIsStillAProblem() throws Exception {
        assertThat(http.get("/v1/id", "Accept", "application/vnd.idmint.id64").body())
                .startsWith("{\"id\":");
        Http.Response bad = http.get("/v1/ids?count=0", "Accept", "application/vnd.idmint.id64");
        assertThat(bad.status()).isEqualTo(400);
        assertThat(bad.header("content-type")).isEqualTo("application/problem+json");
        assertThat(http.get("/v1/ids?count=2", "Accept", "application/vnd.idmint.id64x").body())
                .as("another type is not ours").startsWith("{\"ids\":[");
    }

    @Test
    void leanDecode_roundTripsInEveryForm() {
        long id = Long.parseLong((String) http.get("/v1/id").json().get("id"));
        IdParts p = LAYOUT.decode(id);
        String expected = "{\"id\":\"" + id + "\",\"timestamp\":\""
                + ApiJson.ISO_MILLIS.format(p.timestamp()) + "\",\"datacenter\":0,\"worker\":0,"
                + "\"sequence\":" + p.sequence() + "}";

        for (String form : forms(id)) {
            Http.Response r = http.get("/v1/id/decode?id=" + form);

            assertThat(r.status()).as(form).isEqualTo(200);
            assertThat(r.body()).as(form).isEqualTo(expected);
        }
        assertThat(expected).contains("\"timestamp\":\"" + Instant.ofEpochMilli(
                p.timestampMillis()).toString().substring(0, 19));
    }

    // ---------------------------------------------------------------- detailed API

    @Test
    void detailedIds_haveExactFieldsAndABreakdownThatMatchesTheId() {
        long before = System.currentTimeMillis();
        Http.Response r = http.get("/api/v1/ids?count=3");

        assertThat(r.status()).isEqualTo(200);
        assertThat(r.header("content-type")).isEqualTo("application/json");
        Map<String, Object> body = r.json();
        assertThat(body.keySet()).containsExactly("ids", "generated_at");
        Instant generated = Instant.parse((String) body.get("generated_at"));
        assertThat(generated.toEpochMilli()).isBetween(before - 1000,
                System.currentTimeMillis() + 1000);
        List<?> ids = (List<?>) body.get("ids");
        assertThat(ids).hasSize(3);
        for (Object o : ids) {
            assertDetailed(asMap(o));
        }
    }

    @Test
    void detailedIds_countDefaultsToOneAndMaxIsAllowed() {
        assertThat((List<?>) http.get("/api/v1/ids").json().get("ids")).hasSize(1);

        Http.Response r = http.get("/api/v1/ids?count=" + MAX);

        List<?> ids = (List<?>) r.json().get("ids");
        assertThat(ids).hasSize(MAX);
        assertDetailed(asMap(ids.get(MAX - 1)));
    }

    @Test
    void detailedDecode_roundTripsInEveryForm() {
        long id = Long.parseLong((String) http.get("/v1/id").json().get("id"));

        for (String form : forms(id)) {
            Http.Response r = http.get("/api/v1/ids/" + form);

            assertThat(r.status()).as(form).isEqualTo(200);
            Map<String, Object> parts = r.json();
            assertDetailed(parts);
            assertThat(parts.get("value_string")).isEqualTo(Long.toString(id));
        }
    }

    @Test
    void decode_bareHexReadsAndFormatForcesOneReading() {
        long id = 0x01a569d8c6800000L;
        assertThat(http.get("/api/v1/ids/01a569d8c6800000").json().get("value_string"))
                .isEqualTo(Long.toString(id));
        assertThat(http.get("/v1/id/decode?id=01a569d8c6800000").status()).isEqualTo(200);

        assertProblem(http.get("/api/v1/ids/1000000000000000"), 400, "'1000000000000000' is "
                + "ambiguous: it reads as decimal ID 1000000000000000 and as hex ID "
                + "1152921504606846976; give its format (decimal or hex) to choose");
        assertThat(http.get("/api/v1/ids/1000000000000000?format=hex").json()
                .get("value_string")).isEqualTo(Long.toString(1L << 60));
        assertThat(http.get("/api/v1/ids/1000000000000000?format=decimal").json()
                .get("value_string")).isEqualTo("1000000000000000");
        assertThat(http.get("/v1/id/decode?format=decimal&id=1000000000000000").json()
                .get("id")).isEqualTo("1000000000000000");
        assertThat(assertProblem(http.get("/v1/id/decode?id=1&format=octal"), 400,
                "unknown ID format 'octal'").get("type")).isEqualTo(BAD_PARAMETER);
    }

    @Test
    void decode_allDigitBase32_is400NamingBothReadingsUnlessFormatChooses() {
        assertProblem(http.get("/v1/id/decode?id=0400000000005"), 400, "'0400000000005' is "
                + "ambiguous: it reads as decimal ID 400000000005 and as base32 ID "
                + "144115188075855877");
        assertThat(http.get("/v1/id/decode?id=0400000000005&format=base32").json().get("id"))
                .isEqualTo("144115188075855877");
        assertThat(http.get("/api/v1/ids/0400000000005?format=base32").json()
                .get("value_string")).isEqualTo("144115188075855877");
    }

    /** Checks one detailed object: exact field names, strings for IDs, parts from the ID. */
    private static void assertDetailed(Map<String, Object> o) {
        assertThat(o.keySet()).containsExactly("value_string", "value_hex", "breakdown");
        assertThat(o.get("value_string")).isInstanceOf(String.class);
        long id = Long.parseLong((String) o.get("value_string"));
        assertThat((String) o.get("value_hex")).matches("[0-9a-f]{16}")
                .isEqualTo(String.format("%016x", id));
        Map<String, Object> b = asMap(o.get("breakdown"));
        assertThat(b.keySet()).containsExactly("timestamp_ms", "datacenter_id", "worker_id",
                "sequence_number");
        IdParts p = LAYOUT.decode(id);
        assertThat(b.get("timestamp_ms")).isEqualTo(p.timestampMillis());
        assertThat(b.get("datacenter_id")).isEqualTo((long) p.datacenterId());
        assertThat(b.get("worker_id")).isEqualTo((long) p.workerId());
        assertThat(b.get("sequence_number")).isEqualTo(p.sequence());
    }

    // ---------------------------------------------------------------- errors

    static Stream<Arguments> badRequests() {
        String big = "9223372036854775808";
        return Stream.of(
                Arguments.of("/v1/ids?count=0", BAD_PARAMETER,
                        "count must be from 1 to 10000, got 0"),
                Arguments.of("/v1/ids?count=-1", BAD_PARAMETER, "from 1 to 10000, got -1"),
                Arguments.of("/v1/ids?count=10001", BAD_PARAMETER, "from 1 to 10000, got 10001"),
                Arguments.of("/v1/ids?count=99999999999999999999", BAD_PARAMETER,
                        "got 99999999999999999999"),
                Arguments.of("/v1/ids?count=abc", BAD_PARAMETER, "whole number, got 'abc'"),
                Arguments.of("/v1/ids?count=1.5", BAD_PARAMETER, "whole number, got '1.5'"),
                Arguments.of("/v1/ids?count=", BAD_PARAMETER, "whole number, got ''"),
                Arguments.of("/api/v1/ids?count=0", BAD_PARAMETER, "got 0"),
                Arguments.of("/api/v1/ids?count=-1", BAD_PARAMETER, "got -1"),
                Arguments.of("/api/v1/ids?count=10001", BAD_PARAMETER, "got 10001"),
                Arguments.of("/api/v1/ids?count=abc", BAD_PARAMETER, "got 'abc'"),
                Arguments.of("/v1/ids?cnt=5", BAD_PARAMETER, "unknown query parameter 'cnt'"),
                Arguments.of("/v1/id?count=5", BAD_PARAMETER, "unknown query parameter 'count'"),
                Arguments.of("/v1/ids?count=1&count=2", BAD_PARAMETER, "count is given more"),
                Arguments.of("/v1/id/decode", BAD_PARAMETER, "missing id: the query"),
                Arguments.of("/v1/id/decode?id=", BAD_PARAMETER, "missing id: the query"),
                Arguments.of("/v1/id/decode?ids=1", BAD_PARAMETER, "unknown query parameter 'ids'"),
                Arguments.of("/api/v1/ids/", BAD_PARAMETER, "missing id"),
                Arguments.of("/api/v1/ids/1?x=1", BAD_PARAMETER, "unknown query parameter 'x'"),
                Arguments.of("/v1/id/decode?id=1&id=2", BAD_PARAMETER, "id is given more"),
                Arguments.of("/v1/id/decode?id=12345678901234567890", MALFORMED_ID,
                        "'12345678901234567890' is not a decimal ID"),
                Arguments.of("/v1/id/decode?id=" + big, MALFORMED_ID,
                        "'" + big + "' is not a decimal ID: larger than the largest ID"),
                Arguments.of("/v1/id/decode?id=-5", MALFORMED_ID, "'-5' is negative"),
                Arguments.of("/v1/id/decode?id=abc", MALFORMED_ID, "'abc' is not an ID"),
                Arguments.of("/v1/id/decode?id=0xzz", MALFORMED_ID, "'0xzz' is not a hex ID"),
                Arguments.of("/v1/id/decode?id=0x8000000000000000", MALFORMED_ID,
                        "above 0x7fffffffffffffff"),
                Arguments.of("/v1/id/decode?id=UUUUUUUUUUUUU", MALFORMED_ID,
                        "'UUUUUUUUUUUUU' is not a base32 ID"),
                Arguments.of("/v1/id/decode?id=8ZZZZZZZZZZZZ", MALFORMED_ID,
                        "first symbol must be 0-7"),
                Arguments.of("/api/v1/ids/abc", MALFORMED_ID, "'abc' is not an ID"),
                Arguments.of("/api/v1/ids/0xzz", MALFORMED_ID, "'0xzz' is not a hex ID"),
                Arguments.of("/api/v1/ids/-1", MALFORMED_ID, "'-1' is negative"),
                Arguments.of("/api/v1/ids/" + "1".repeat(40), MALFORMED_ID,
                        "expected 1 to 19 digits"));
    }

    @ParameterizedTest
    @MethodSource("badRequests")
    void badRequest_is400ProblemNamingTheValue(String path, String type, String detail) {
        Map<String, Object> p = assertProblem(http.get(path), 400, detail);

        assertThat(p.get("type")).isEqualTo(type);
    }

    @Test
    void rejectedRequests_issueNothing() {
        long before = issued();

        badRequests().forEach(a -> assertThat(http.get((String) a.get()[0]).status())
                .isEqualTo(400));
        assertThat(http.send("POST", "/v1/ids?count=5").status()).isEqualTo(405);

        assertThat(issued()).isEqualTo(before);
        assertThat(leanIds("/v1/ids?count=7")).hasSize(7);
        assertThat(issued()).isEqualTo(before + 7);
    }

    @ParameterizedTest
    @ValueSource(strings = {"/nope", "/v1/id/", "/v1", "/v1/ids/", "//v1/id", "/api/v1/ids/1/2",
        "/API/V1/IDS", "/api/v1/segments/order", "/api/v1/segments/a/b/ids",
        "/api/segment/get/", "/api/snowflake/get/a/b", "/api/v1/codes/ABC/x", "/api/v1/uuid",
        "/index.html"})
    void unknownPath_is404Problem(String path) {
        Map<String, Object> p = assertProblem(http.get(path), 404, "no endpoint at path");

        assertThat(p.get("title")).isEqualTo("Not Found");
    }

    @Test
    void wrongMethod_is405WithAllow() {
        Http.Response post = http.send("POST", "/v1/id");
        assertProblem(post, 405, "method POST is not allowed on /v1/id");
        assertThat(post.header("allow")).isEqualTo("GET");

        Http.Response head = http.send("HEAD", "/v1/ids?count=3");
        assertThat(head.status()).isEqualTo(405);
        assertThat(head.header("allow")).isEqualTo("GET");

        Http.Response delete = http.send("DELETE", "/health/live");
        assertProblem(delete, 405, "DELETE");
        assertThat(delete.header("allow")).isEqualTo("GET, HEAD");

        assertThat(http.send("PUT", "/api/v1/ids/1").header("allow")).isEqualTo("GET, HEAD");
        assertThat(http.send("OPTIONS", "/").status()).isEqualTo(405);
    }

    @Test
    void head_onAReadOnlyRoute_isAnsweredWithoutABody() {
        Http.Response r = http.send("HEAD", "/health/live");

        assertThat(r.status()).isEqualTo(200);
        assertThat(r.body()).isEmpty();
    }

    @Test
    void oversizedUri_is414ProblemAndClosesTheConnection() throws IOException {
        String reply = raw("GET /v1/ids?count=" + "1".repeat(HttpApi.MAX_REQUEST_LINE)
                + " HTTP/1.1\r\nHost: x\r\n\r\n");

        assertThat(reply).startsWith("HTTP/1.0 414 ").contains("content-type: application/"
                + "problem+json").contains("\"status\":414").contains("longer than 4096 bytes");
        assertProblem(http.get("/v1/id?x=" + "a".repeat(5000)), 414, "request line");
    }

    @Test
    void oversizedHeaders_is431Problem() {
        assertProblem(http.get("/v1/id", "X-Big", "a".repeat(HttpApi.MAX_HEADERS + 100)), 431,
                "headers are larger than 8192 bytes");
    }

    @Test
    void requestBody_overTheLimit_is413ProblemAndIssuesNothing() throws IOException {
        long before = issued();
        byte[] body = new byte[(int) HttpApi.MAX_BODY + 1];

        Http.Response r = http.send("GET", "/v1/id",
                HttpRequest.BodyPublishers.ofByteArray(body));

        assertProblem(r, 413, "reads no request bodies");
        assertThat(issued()).isEqualTo(before);
        String chunked = raw("GET /v1/id HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n"
                + "\r\n5\r\nhello\r\n0\r\n\r\n");
        assertThat(chunked).startsWith("HTTP/1.1 413 ");
        // A small body is read and ignored.
        assertThat(http.send("GET", "/v1/id", HttpRequest.BodyPublishers.ofString("x")).status())
                .isEqualTo(200);
    }

    @Test
    void badPercentEncoding_is400Problem() throws IOException {
        // java.net.http refuses to send such a URI, so over a socket.
        String reply = raw("GET /v1/ids?count=%zz HTTP/1.1\r\nHost: x\r\nConnection: close"
                + "\r\n\r\n");

        assertThat(reply).startsWith("HTTP/1.1 400 ").contains("application/problem+json")
                .contains("bad percent-encoding in '%zz'");
    }

    @Test
    void malformedRequest_is400Problem() throws IOException {
        assertThat(raw("GARBAGE\r\n\r\n")).startsWith("HTTP/1.").contains(" 400 ")
                .contains("application/problem+json");
    }

    // ---------------------------------------------------------------- operations

    @Test
    void healthLive_isUp() {
        Http.Response r = http.get("/health/live");

        assertThat(r.status()).isEqualTo(200);
        assertThat(r.body()).isEqualTo("{\"status\":\"UP\"}");
    }

    @Test
    void healthReady_reportsTheLease() {
        Http.Response r = http.get("/health/ready");

        assertThat(r.status()).isEqualTo(200);
        Map<String, Object> body = r.json();
        assertThat(body.keySet()).containsExactly("state", "datacenter", "worker", "runway_ms",
                "clock_offset_ms", "fleet_skew_ms", "reason", "detail", "workers");
        assertThat(body.get("state")).isEqualTo("ACTIVE");
        assertThat(body).containsEntry("reason", null).containsEntry("fleet_skew_ms", 0L);
        assertThat(body.get("worker")).isEqualTo(0L);
        List<?> workers = (List<?>) body.get("workers");
        assertThat(workers).hasSize(1);
        Map<?, ?> worker = (Map<?, ?>) workers.get(0);
        assertThat(worker.get("worker")).isEqualTo(0L);
        assertThat(worker.get("state")).isEqualTo("ACTIVE");
        assertThat(worker.get("ready")).isEqualTo(true);
        assertThat((Long) body.get("runway_ms")).isPositive();
        assertThat(r.header("retry-after")).isNull();
    }

    @Test
    void status_describesIdentityLeaseAndCounts() {
        Map<String, Object> s = http.get("/api/v1/status").json();

        assertThat(s).containsEntry("state", "ACTIVE").containsEntry("ready", true)
                .containsEntry("datacenter", 0L).containsEntry("worker", 0L)
                .containsEntry("layout", "snowflake").containsEntry("epoch_ms",
                        LAYOUT.epochMillis())
                .containsEntry("epoch", "2026-01-01T00:00:00.000Z")
                .containsEntry("max_count", (long) MAX);
        assertThat((String) s.get("layout_spec")).startsWith("time=41,datacenter=5,worker=5");
        assertThat(s).containsKeys("runway_ms", "clock_offset_ms", "detail", "ids_issued",
                "now_ms");
    }

    @Test
    void metrics_exposeEveryMetricAfterSomeRequests() {
        http.get("/v1/id");
        for (int i = 0; i < 5; i++) {
            http.get("/v1/ids?count=" + MAX);
        }
        http.get("/v1/ids?count=0");
        http.get("/nope");

        Http.Response r = http.get("/metrics");

        assertThat(r.status()).isEqualTo(200);
        assertThat(r.header("content-type")).startsWith("text/plain");
        String text = r.body();
        assertThat(text).contains("idmint_ids_issued_total ",
                "idmint_http_requests_total{route=\"/v1/id\",status=\"200\"} ",
                "idmint_http_requests_total{route=\"/v1/ids\",status=\"400\"} ",
                "idmint_http_requests_total{route=\"unmatched\",status=\"404\"} ",
                "idmint_http_request_duration_seconds_bucket{route=\"/v1/id\",le=",
                "idmint_http_request_duration_seconds_count{route=\"/v1/ids\"} ",
                "idmint_sequence_waits_total ", "idmint_clock_behind_total ",
                "idmint_lease_state{state=\"ACTIVE\"} 1.0",
                "idmint_lease_state{state=\"LOST\"} 0.0",
                "idmint_runway_seconds ", "idmint_clock_offset_seconds ");
        // 10000 IDs take at least three ticks of 4096: the generator waited for the next one
        // (unless every tick ended on its own, which five such requests make unlikely).
        assertThat(sample(text, "idmint_sequence_waits_total")).isPositive();
        assertThat(sample(text, "idmint_ids_issued_total")).isGreaterThanOrEqualTo(5 * MAX + 1);
        assertThat(sample(text, "idmint_runway_seconds")).isPositive();
    }

    @Test
    void page_isSelfContainedHtml() {
        Http.Response r = http.get("/");

        assertThat(r.status()).isEqualTo(200);
        assertThat(r.header("content-type")).isEqualTo("text/html; charset=utf-8");
        assertThat(r.header("content-security-policy")).contains("default-src 'none'");
        assertThat(r.body()).contains("<title>idmint</title>", "/api/v1/status",
                "id=\"decode-input\"").doesNotContain("src=\"http", "href=\"http");
        assertThat(http.get("/?decode=1").status()).isEqualTo(200);
        assertThat(http.get("/?other=1").status()).isEqualTo(400);
    }

    // ---------------------------------------------------------------- JavaScript clients

    /**
     * IDs are JSON strings so that JavaScript reads them exactly: Node parses a response and
     * prints the IDs, which must equal, digit for digit, the ones in the bytes the server sent;
     * as numbers (what {@code Number(id)} gives) some of them would have changed.
     */
    @Test
    void ids_surviveJsonParseInNode() throws Exception {
        String script = "const url = process.argv[1];"
                + "fetch(url).then(r => r.text()).then(text => {"
                + "  const body = JSON.parse(text);"
                + "  const types = new Set(body.ids.map(id => typeof id));"
                + "  const lost = body.ids.filter(id => String(Number(id)) !== id).length;"
                + "  console.log(text);"
                + "  console.log('types=' + [...types].join(','));"
                + "  console.log('lost=' + lost);"
                + "  for (const id of body.ids) console.log(id);"
                + "}).catch(e => { console.error(e); process.exit(1); });";
        ChildProcess.Result node = ChildProcess.run(new ProcessBuilder(NodeTools.node(), "-e",
                script, http.base() + "/v1/ids?count=1000"), Duration.ofSeconds(30));
        assertThat(node.exitCode()).as(node.output()).isZero();
        String out = node.stdout();

        List<String> lines = Arrays.asList(out.split("\n"));
        String sent = lines.get(0);
        List<String> minted = new ArrayList<>();
        Matcher m = Pattern.compile("\"([0-9]+)\"").matcher(sent);
        while (m.find()) {
            minted.add(m.group(1));
        }
        assertThat(minted).hasSize(1000);
        assertThat(lines.get(1)).isEqualTo("types=string");
        assertThat(lines.subList(3, lines.size())).containsExactlyElementsOf(minted);
        int lost = Integer.parseInt(lines.get(2).substring("lost=".length()));
        assertThat(lost).as("IDs that Number() would have changed").isPositive();
        assertThat(minted).allSatisfy(id -> assertThat(Long.parseLong(id))
                .isGreaterThan(1L << 53));
    }

    // ---------------------------------------------------------------- helpers

    private static List<String> leanIds(String path) {
        Http.Response r = http.get(path);
        assertThat(r.status()).as(r.body()).isEqualTo(200);
        Map<String, Object> body = r.json();
        assertThat(body.keySet()).containsExactly("ids");
        List<String> ids = new ArrayList<>();
        for (Object o : (List<?>) body.get("ids")) {
            assertThat(o).isInstanceOf(String.class);
            ids.add((String) o);
        }
        return ids;
    }

    /** The ID as decimal, 0x hex (both cases), 16 plain hex digits... (docs/http-grpc.md). */
    private static List<String> forms(long id) {
        return List.of(Long.toString(id), "0x" + IdCodec.HEX.format(id),
                "0X" + IdCodec.HEX.format(id).toUpperCase(), IdCodec.BASE32.format(id),
                IdCodec.BASE32.format(id).toLowerCase());
    }

    static Map<String, Object> assertProblem(Http.Response r, int status, String detail) {
        assertThat(r.status()).as(r.body()).isEqualTo(status);
        assertThat(r.header("content-type")).isEqualTo("application/problem+json");
        Map<String, Object> p = r.json();
        assertThat(p.keySet()).containsExactly("type", "title", "status", "detail");
        assertThat(p.get("status")).isEqualTo((long) status);
        assertThat((String) p.get("detail")).contains(detail);
        return p;
    }

    private static long issued() {
        return (Long) http.get("/api/v1/status").json().get("ids_issued");
    }

    static double sample(String metrics, String name) {
        Matcher m = Pattern.compile("(?m)^" + Pattern.quote(name) + " (\\S+)$").matcher(metrics);
        assertThat(m.find()).as(name).isTrue();
        return Double.parseDouble(m.group(1));
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> asMap(Object o) {
        return (Map<String, Object>) o;
    }

    /** One request over a plain socket, for what java.net.http will not send; the raw reply. */
    private static String raw(String request) throws IOException {
        try (Socket s = new Socket("127.0.0.1", server.httpPort())) {
            s.setSoTimeout((int) Duration.ofSeconds(10).toMillis());
            OutputStream out = s.getOutputStream();
            out.write(request.getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            InputStream in = s.getInputStream();
            ByteArrayOutputStream reply = new ByteArrayOutputStream();
            // The server closes the connection after these replies: read to the end.
            in.transferTo(reply);
            return reply.toString(StandardCharsets.ISO_8859_1);
        }
    }
}

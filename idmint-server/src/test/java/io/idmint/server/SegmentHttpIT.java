package io.idmint.server;

import static io.idmint.server.HttpApiIT.assertProblem;
import static io.idmint.server.HttpApiIT.sample;
import static org.assertj.core.api.Assertions.assertThat;

import io.idmint.IdParts;
import io.idmint.Layout;
import io.idmint.server.harness.Http;
import io.idmint.server.harness.TestServers;
import io.idmint.server.http.HttpApi;
import io.idmint.spi.support.Names;
import java.net.http.HttpRequest;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Segments over HTTP on real in-process servers, as {@code serve} starts them, on the default
 * store (an H2 file under the data directory): the API, Leaf's API, the admin calls, every error
 * docs/http-grpc.md lists with its status, auto-creation, tokens, metrics, and a store that is
 * down from the start (the snowflake API serves on).
 */
class SegmentHttpIT {

    private static final int MAX = 10_000;
    private static final String BAD_PARAMETER = "urn:idmint:problem:bad-parameter";
    private static final String JSON = "application/json";

    @TempDir
    static Path data;

    private static Server server;
    private static Server autoCreating;
    private static Server secured;
    private static Server storeDown;
    private static Http http;
    private static final BlockingQueue<String> WARNINGS = new LinkedBlockingQueue<>();
    private static final String CODES_KEY = "000102030405060708090a0b0c0d0e0f";

    @BeforeAll
    static void start() {
        server = TestServers.start(data.resolve("a"));
        // The first call creates the table and the tag within the fetch timeout: on a busy
        // machine a fresh H2 file can take more than the default second for that.
        autoCreating = TestServers.start(data.resolve("b"), "segment.auto-create=true",
                "segment.step=10", "segment.fetch-timeout=10s", "codes.key=" + CODES_KEY,
                "codes.segment-bits=20");
        secured = TestServers.start(data.resolve("c"), "auth.token=api",
                "auth.admin-token=admin");
        // Nothing listens on port 1: every call to the store fails at once.
        storeDown = Server.start(TestServers.config(data.resolve("d"),
                "segment.store=jdbc:postgresql://127.0.0.1:1/x?idmint.timeout=250ms",
                "segment.fetch-timeout=300ms"), WARNINGS::add);
        http = new Http(server.httpPort());
    }

    @AfterAll
    static void stop() {
        for (Server s : new Server[] {server, autoCreating, secured, storeDown}) {
            if (s != null) {
                s.close();
            }
        }
    }

    // ---------------------------------------------------------------- happy paths

    @Test
    void create_thenIds_countDefaultsToOne_andIdsAreDenseIncreasingStrings() {
        Http.Response created = create(http, "{\"tag\":\"order\",\"start\":1001,\"step\":100}");

        assertThat(created.status()).as(created.body()).isEqualTo(201);
        assertThat(created.header("content-type")).isEqualTo(JSON);
        assertThat(created.body()).isEqualTo("{\"tag\":\"order\",\"next\":\"1001\",\"step\":100}");

        Http.Response three = http.get("/api/v1/segments/order/ids?count=3");
        assertThat(three.status()).isEqualTo(200);
        assertThat(three.header("content-type")).isEqualTo(JSON);
        assertThat(three.header("cache-control")).isEqualTo("no-store");
        assertThat(three.body()).isEqualTo("{\"tag\":\"order\",\"ids\":[\"1001\",\"1002\","
                + "\"1003\"]}");
        assertThat(http.get("/api/v1/segments/order/ids").body())
                .isEqualTo("{\"tag\":\"order\",\"ids\":[\"1004\"]}");

        List<Long> max = ids(http.get("/api/v1/segments/order/ids?count=" + MAX));
        assertThat(max).hasSize(MAX).doesNotHaveDuplicates().isSorted();
        assertThat(max.get(0)).isEqualTo(1005);
        // Dense within a node while no range is skipped: ranges grow, but follow each other.
        assertThat(max.get(MAX - 1)).isEqualTo(1005 + MAX - 1);
    }

    @Test
    void create_defaults_startOneAndSegmentStep_andListShowsEveryTag() {
        assertThat(create(http, "{\"tag\":\"list-a\"}").body())
                .isEqualTo("{\"tag\":\"list-a\",\"next\":\"1\",\"step\":1000}");
        assertThat(create(http, "{\"tag\":\"list-b\",\"start\":\"500\",\"step\":7}").status())
                .isEqualTo(201);
        http.get("/api/v1/segments/list-a/ids?count=5");

        Http.Response list = http.get("/api/v1/segments");

        assertThat(list.status()).isEqualTo(200);
        assertThat(list.header("content-type")).isEqualTo(JSON);
        assertThat(list.body()).startsWith("{\"segments\":[")
                // list-a's first range (its step) is taken already
                .contains("{\"tag\":\"list-a\",\"next\":\"1001\",\"step\":1000}")
                .contains("{\"tag\":\"list-b\",\"next\":\"500\",\"step\":7}");
        assertThat(http.send("HEAD", "/api/v1/segments").status()).isEqualTo(200);
    }

    // ---------------------------------------------------------------- serials

    static Http.Response define(Http http, String json, String... headers) {
        String[] h = new String[headers.length + 2];
        h[0] = "Content-Type";
        h[1] = JSON;
        System.arraycopy(headers, 0, h, 2, headers.length);
        return http.send("POST", "/api/v1/serials", HttpRequest.BodyPublishers.ofString(json), h);
    }

    @Test
    void serial_defineThenValues_todaysDateAndADenseCounter_listed() {
        Http.Response defined = define(http, "{\"name\":\"invoice\",\"period\":\"day\","
                + "\"zone\":\"UTC\",\"template\":\"INV-{date:yyyyMMdd}-{counter:6}{check}\"}");
        assertThat(defined.status()).as(defined.body()).isEqualTo(201);
        assertThat(defined.body()).isEqualTo("{\"name\":\"invoice\",\"period\":\"day\","
                + "\"zone\":\"UTC\",\"template\":\"INV-{date:yyyyMMdd}-{counter:6}{check}\","
                + "\"first\":1,\"max_rate\":10,\"step\":100}");
        // The same definition again changes nothing.
        assertThat(define(http, "{\"name\":\"invoice\",\"period\":\"day\",\"zone\":\"UTC\","
                + "\"template\":\"INV-{date:yyyyMMdd}-{counter:6}{check}\"}").status())
                .isEqualTo(201);

        String today = java.time.LocalDate.now(java.time.ZoneOffset.UTC).toString()
                .replace("-", "");
        Http.Response one = http.get("/api/v1/serials/invoice");
        assertThat(one.status()).as(one.body()).isEqualTo(200);
        assertThat(one.header("cache-control")).isEqualTo("no-store");
        Map<String, Object> body = one.json();
        assertThat(body.get("serial")).isEqualTo("invoice");
        @SuppressWarnings("unchecked")
        List<String> first = (List<String>) body.get("values");
        @SuppressWarnings("unchecked")
        List<String> more = (List<String>) http.get("/api/v1/serials/invoice?count=250").json()
                .get("values");
        // A run that crosses midnight UTC between the calls starts again at 1: not checked.
        if (first.get(0).startsWith("INV-" + today) && more.get(249).startsWith("INV-" + today)) {
            assertThat(first.get(0)).startsWith("INV-" + today + "-000001");
            for (int i = 0; i < 250; i++) {
                assertThat(more.get(i)).startsWith(String.format("INV-%s-%06d", today, i + 2))
                        .hasSize(20);
            }
        }
        assertThat(http.get("/api/v1/serials").body()).startsWith("{\"serials\":[")
                .contains("{\"name\":\"invoice\",\"period\":\"day\"");
        assertThat(http.get("/metrics").body())
                .contains("idmint_serial_values_issued_total{serial=\"invoice\"")
                .contains("idmint_serial_values_dropped_total{serial=\"invoice\"")
                .contains("idmint_serial_held{serial=\"invoice\"");
    }

    @Test
    void serial_badRequests_areRefusedNamingTheProblem_andDefineNothing() {
        assertProblem(define(http, "{\"name\":\"bad\",\"period\":\"day\","
                + "\"template\":\"{date:yyyyMMdd}-{count}\"}"), 400,
                "unknown field {count}");
        assertProblem(define(http, "{\"name\":\"bad\",\"period\":\"day\",\"zone\":\"Mars/Base\","
                + "\"template\":\"{date:yyyyMMdd}-{counter}\"}"), 400,
                "time zone 'Mars/Base' does not exist");
        assertProblem(define(http, "{\"name\":\"bad\",\"period\":\"day\","
                + "\"template\":\"{date:yyyyMMdd}-{counter:3}\"}"), 400,
                "a counter of width 3 holds values up to 999");
        assertProblem(define(http, "{\"name\":\"bad\",\"colour\":\"red\"}"), 400,
                "unknown field 'colour'; the fields are name, period, zone, template, first, "
                        + "max_rate and step");
        assertProblem(define(http, "{\"period\":\"day\"}"), 400, "field name must be a string");
        assertProblem(http.get("/api/v1/serials/bad"), 404, "serial 'bad' is not defined");
        assertThat(http.get("/api/v1/serials").body()).doesNotContain("\"bad\"");

        define(http, "{\"name\":\"receipt\",\"template\":\"R-{counter}\"}");
        assertProblem(define(http, "{\"name\":\"receipt\",\"template\":\"Q-{counter}\"}"), 409,
                "serial 'receipt' is defined already");
        assertProblem(http.get("/api/v1/serials/receipt?count=0"), 400,
                "count must be from 1 to 10000, got 0");
        assertThat(http.get("/api/v1/serials/receipt").json().get("values"))
                .isEqualTo(List.of("R-1"));
    }

    @Test
    void leafSegment_isOneIdAsPlainText_withoutNewline() {
        create(http, "{\"tag\":\"leaf\",\"start\":42}");

        Http.Response r = http.get("/api/segment/get/leaf");

        assertThat(r.status()).isEqualTo(200);
        assertThat(r.header("content-type")).isEqualTo("text/plain;charset=UTF-8");
        assertThat(r.body()).isEqualTo("42");
        assertThat(http.get("/api/segment/get/leaf").body()).isEqualTo("43");
        assertThat(ids(http.get("/api/v1/segments/leaf/ids")).get(0)).isEqualTo(44);
    }

    @Test
    void leafSnowflake_isOneSnowflakeIdAsPlainText_theKeyIgnored() {
        Http.Response a = http.get("/api/snowflake/get/anything");
        Http.Response b = http.get("/api/snowflake/get/other");

        assertThat(a.status()).isEqualTo(200);
        assertThat(a.header("content-type")).isEqualTo("text/plain;charset=UTF-8");
        assertThat(a.body()).matches("[1-9][0-9]{0,18}");
        long first = Long.parseLong(a.body());
        IdParts p = Layout.SNOWFLAKE.decode(first);
        assertThat(p.workerId()).isZero();
        assertThat(Long.parseLong(b.body())).isGreaterThan(first);
    }

    @Test
    void tagsAreIndependent() {
        create(http, "{\"tag\":\"ind-a\",\"start\":1}");
        create(http, "{\"tag\":\"ind-b\",\"start\":1}");

        assertThat(ids(http.get("/api/v1/segments/ind-a/ids?count=2"))).containsExactly(1L, 2L);
        assertThat(ids(http.get("/api/v1/segments/ind-b/ids?count=2"))).containsExactly(1L, 2L);
        assertThat(ids(http.get("/api/v1/segments/ind-a/ids"))).containsExactly(3L);
    }

    // ---------------------------------------------------------------- errors

    @Test
    void unknownTag_is404_onBothApis() {
        Map<String, Object> p = assertProblem(http.get("/api/v1/segments/nope/ids"), 404,
                "segment tag 'nope' does not exist; create it with POST /api/v1/segments and the "
                        + "body {\"tag\":\"nope\"}, or turn on "
                        + "segment.auto-create");
        assertThat(p.get("type")).isEqualTo("urn:idmint:problem:unknown-tag");
        assertProblem(http.get("/api/segment/get/nope"), 404, "segment tag 'nope' does not exist");
    }

    @Test
    void badTagName_is400NamingIt_onBothApis() {
        Map<String, Object> p = assertProblem(http.get("/api/v1/segments/a%20b/ids"), 400,
                "segment tag 'a b' must be " + Names.TAG_RULE);
        assertThat(p.get("type")).isEqualTo(BAD_PARAMETER);
        assertProblem(http.get("/api/v1/segments//ids"), 400, "segment tag '' must be 1 to 128");
        assertProblem(http.get("/api/v1/segments/" + "x".repeat(129) + "/ids"), 400,
                "must be 1 to 128");
        assertProblem(http.get("/api/segment/get/a%2Fb"), 400, "segment tag 'a/b' must be");
    }

    @Test
    void badCount_is400NamingIt_andIssuesNothing() {
        create(http, "{\"tag\":\"counted\",\"start\":1}");

        assertProblem(http.get("/api/v1/segments/counted/ids?count=0"), 400,
                "count must be from 1 to 10000, got 0");
        assertProblem(http.get("/api/v1/segments/counted/ids?count=" + (MAX + 1)), 400,
                "count must be from 1 to 10000, got 10001");
        assertProblem(http.get("/api/v1/segments/counted/ids?count=-3"), 400,
                "count must be from 1 to 10000, got -3");
        assertProblem(http.get("/api/v1/segments/counted/ids?count=abc"), 400,
                "count must be a whole number, got 'abc'");
        assertProblem(http.get("/api/v1/segments/counted/ids?n=1"), 400,
                "unknown query parameter 'n'; this endpoint takes only count");
        assertProblem(http.get("/api/segment/get/counted?count=2"), 400,
                "unknown query parameter 'count'; this endpoint takes no parameters");

        assertThat(ids(http.get("/api/v1/segments/counted/ids"))).containsExactly(1L);
    }

    @Test
    void createExisting_is409_andKeepsTheTag() {
        create(http, "{\"tag\":\"twice\",\"start\":9}");

        Map<String, Object> p = assertProblem(create(http, "{\"tag\":\"twice\"}"), 409,
                "segment tag 'twice' exists already");

        assertThat(p.get("type")).isEqualTo("urn:idmint:problem:tag-exists");
        assertThat(ids(http.get("/api/v1/segments/twice/ids"))).containsExactly(9L);
    }

    @Test
    void createBadBody_is400NamingTheProblem_andCreatesNothing() {
        assertProblem(create(http, "not json"), 400, "the body must be a JSON object such as "
                + "{\"tag\":\"order\",\"start\":1,\"step\":1000}");
        assertProblem(create(http, ""), 400, "the body must be a JSON object");
        assertProblem(create(http, "[1]"), 400, "the body must be a JSON object");
        assertProblem(create(http, "null"), 400, "the body must be a JSON object");
        assertProblem(create(http, "{}"), 400, "field tag must be a string, got none");
        assertProblem(create(http, "{\"tag\":5}"), 400, "field tag must be a string, got 5");
        assertProblem(create(http, "{\"tag\":\"bad tag\"}"), 400,
                "segment tag 'bad tag' must be 1 to 128");
        assertProblem(create(http, "{\"tag\":\"b1\",\"start\":-1}"), 400,
                "start must be from 0 to 2305843009213693952 (2^61), got -1");
        assertProblem(create(http, "{\"tag\":\"b2\",\"step\":0}"), 400,
                "step must be from 1 to 1099511627776 (2^40), got 0");
        assertProblem(create(http, "{\"tag\":\"b3\",\"step\":1.5}"), 400,
                "field step must be a whole number, got 1.5");
        assertProblem(create(http, "{\"tag\":\"b4\",\"start\":\"ten\"}"), 400,
                "field start must be a whole number, got 'ten'");
        assertProblem(create(http, "{\"tag\":\"b5\",\"size\":1}"), 400,
                "unknown field 'size'; the fields are tag, start and step");
        assertProblem(http.send("POST", "/api/v1/segments?x=1",
                HttpRequest.BodyPublishers.ofString("{\"tag\":\"b6\"}")), 400,
                "unknown query parameter 'x'");

        assertThat(http.get("/api/v1/segments").body()).doesNotContain("\"b1\"", "\"b2\"",
                "\"b3\"", "\"b4\"", "\"b5\"", "\"b6\"", "bad tag");
    }

    @Test
    void createBody_duplicateField_isRefusedAndCreatesNothing() {
        Map<String, Object> p = assertProblem(create(http, "{\"tag\":\"dup-a\",\"tag\":\"dup-b\"}"),
                400, "field 'tag' is given twice (at character 16)");

        assertThat(p.get("type")).isEqualTo(BAD_PARAMETER);
        assertThat(http.get("/api/v1/segments").body()).doesNotContain("dup-a", "dup-b");
    }

    @Test
    void createBody_notJson_namesTheProblemInPlainWords() {
        for (String body : new String[] {"not json", "{\"tag\":", "{\"tag\" \"x\"}", "{'tag':1}"}) {
            Map<String, Object> p = assertProblem(create(http, body), 400,
                    "the body must be a JSON object such as");

            assertThat((String) p.get("detail")).as(body).contains("not valid JSON: ")
                    .contains("(at character ").doesNotContain("Source", "REDACTED", "Feature",
                            "jackson", "Exception");
        }
    }

    @Test
    void create_withASmallChunkedBody_creates() throws Exception {
        String reply = raw(server, "POST /api/v1/segments HTTP/1.1\r\nHost: x\r\n"
                + "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n"
                + "Connection: close\r\n\r\n"
                + chunk("{\"tag\":\"c") + chunk("hunked\"}") + chunk(""));

        assertThat(reply).startsWith("HTTP/1.1 201 ")
                .endsWith("{\"tag\":\"chunked\",\"next\":\"1\",\"step\":1000}");
    }

    @Test
    void create_withAChunkedBodyOverTheLimit_is413AndCreatesNothing() throws Exception {
        String padding = " ".repeat((int) HttpApi.MAX_BODY);
        String chunk = "{\"tag\":\"huge\"" + padding + "}";
        String reply = raw(server, "POST /api/v1/segments HTTP/1.1\r\nHost: x\r\n"
                + "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
                + chunk(chunk) + chunk(""));

        assertThat(reply).startsWith("HTTP/1.1 413 ").contains("over 1024 bytes");
        assertThat(http.get("/api/v1/segments").body()).doesNotContain("\"huge\"");
    }

    @Test
    void wrongMethod_is405WithAllow() {
        Http.Response post = http.send("POST", "/api/v1/segments/x/ids");
        assertProblem(post, 405, "method POST is not allowed on /api/v1/segments/{tag}/ids");
        assertThat(post.header("allow")).isEqualTo("GET");
        Http.Response delete = http.send("DELETE", "/api/v1/segments");
        assertProblem(delete, 405, "allowed: GET, HEAD, POST");
        assertThat(delete.header("allow")).isEqualTo("GET, HEAD, POST");
        assertThat(http.send("POST", "/api/segment/get/x").status()).isEqualTo(405);
        assertThat(http.send("HEAD", "/api/snowflake/get/x").status()).isEqualTo(405);
    }

    // ---------------------------------------------------------------- configuration

    @Test
    void autoCreate_unknownTagIsCreatedAtOneWithSegmentStep() {
        Http auto = new Http(autoCreating.httpPort());

        assertThat(ids(auto.get("/api/v1/segments/fresh/ids?count=3")))
                .containsExactly(1L, 2L, 3L);
        assertThat(auto.get("/api/segment/get/fresh2").body()).isEqualTo("1");
        // The store is past what was served; the next range may be fetched already.
        assertThat(auto.get("/api/v1/segments").body()).containsPattern(
                "\\{\"tag\":\"fresh\",\"next\":\"(11|31)\",\"step\":10}");
        assertProblem(auto.get("/api/v1/segments/bad%20tag/ids"), 400, "must be 1 to 128");
    }

    @Test
    void relaxedOrder_concurrentCallsGetUniqueIds_eachBatchIncreasing() throws Exception {
        Server relaxed = TestServers.start(data.resolve("e"), "segment.order=relaxed",
                "segment.auto-create=true", "segment.step=100", "segment.fetch-timeout=10s");
        try {
            Http http = new Http(relaxed.httpPort());
            List<Long> all = new ArrayList<>();
            java.util.concurrent.ExecutorService pool =
                    java.util.concurrent.Executors.newFixedThreadPool(4);
            try {
                List<java.util.concurrent.Future<List<Long>>> clients = new ArrayList<>();
                for (int c = 0; c < 4; c++) {
                    clients.add(pool.submit(() -> {
                        List<Long> mine = new ArrayList<>();
                        for (int i = 0; i < 25; i++) {
                            List<Long> batch =
                                    ids(http.get("/api/v1/segments/loose/ids?count=37"));
                            assertThat(batch).hasSize(37).isSorted().doesNotHaveDuplicates();
                            mine.addAll(batch);
                        }
                        return mine;
                    }));
                }
                for (java.util.concurrent.Future<List<Long>> f : clients) {
                    all.addAll(f.get());
                }
            } finally {
                pool.shutdownNow();
            }
            assertThat(all).hasSize(4 * 25 * 37).doesNotHaveDuplicates();
        } finally {
            relaxed.close();
        }
    }

    @Test
    void auth_adminCallsNeedTheAdminToken_idsTheApiToken() {
        Http s = new Http(secured.httpPort());
        String api = "Bearer api";
        String admin = "Bearer admin";
        HttpRequest.BodyPublisher body = HttpRequest.BodyPublishers.ofString("{\"tag\":\"sec\"}");

        assertProblem(s.send("POST", "/api/v1/segments", body), 401, "needs an Authorization");
        assertProblem(s.send("POST", "/api/v1/segments", body, "Authorization", api), 403,
                "/api/v1/segments is an admin call");
        assertProblem(s.get("/api/v1/segments", "Authorization", api), 403, "admin call");
        assertThat(s.send("POST", "/api/v1/segments", body, "Authorization", admin).status())
                .isEqualTo(201);
        assertThat(s.get("/api/v1/segments", "Authorization", admin).body()).contains("\"sec\"");

        assertProblem(s.get("/api/v1/segments/sec/ids"), 401, "needs an Authorization");
        assertProblem(s.get("/api/segment/get/sec"), 401, "needs an Authorization");
        assertProblem(s.get("/api/snowflake/get/k"), 401, "needs an Authorization");
        assertThat(ids(s.get("/api/v1/segments/sec/ids", "Authorization", api)))
                .containsExactly(1L);
        assertThat(s.get("/api/segment/get/sec", "Authorization", api).body()).isEqualTo("2");
        assertThat(s.get("/api/snowflake/get/k", "Authorization", api).status()).isEqualTo(200);
        // The token is checked before the tag and the count.
        assertProblem(s.get("/api/v1/segments/bad%20tag/ids?count=0"), 401, "Authorization");
        // Serials: defining and listing are admin calls, values need the API token.
        String serial = "{\"name\":\"sec\",\"template\":\"S-{counter}\"}";
        assertProblem(define(s, serial), 401, "needs an Authorization");
        assertProblem(define(s, serial, "Authorization", api), 403,
                "/api/v1/serials is an admin call");
        assertThat(define(s, serial, "Authorization", admin).status()).isEqualTo(201);
        assertProblem(s.get("/api/v1/serials", "Authorization", api), 403, "admin call");
        assertProblem(s.get("/api/v1/serials/sec"), 401, "needs an Authorization");
        assertThat(s.get("/api/v1/serials/sec", "Authorization", api).json().get("values"))
                .isEqualTo(List.of("S-1"));
    }

    @Test
    void metricsAndStatus_withAuth_showTagNamesOnlyToTheAdminToken() {
        Http s = new Http(secured.httpPort());
        assertThat(s.send("POST", "/api/v1/segments", HttpRequest.BodyPublishers.ofString(
                "{\"tag\":\"secret-tag\"}"), "Authorization", "Bearer admin").status())
                .isEqualTo(201);
        assertThat(ids(s.get("/api/v1/segments/secret-tag/ids", "Authorization", "Bearer api")))
                .hasSize(1);

        for (String token : new String[] {null, "Bearer api", "Bearer nonsense"}) {
            String[] headers = token == null ? new String[0]
                    : new String[] {"Authorization", token};
            Http.Response metrics = s.get("/metrics", headers);
            assertThat(metrics.status()).isEqualTo(200);
            assertThat(metrics.body()).as("/metrics with %s", token).doesNotContain("secret-tag")
                    .doesNotContain("idmint_segment_").contains("idmint_http_requests_total");
            assertThat((List<?>) s.get("/api/v1/status", headers).json().get("segments"))
                    .as("/api/v1/status with %s", token).isEmpty();
        }
        assertThat(s.get("/metrics", "Authorization", "Bearer admin").body())
                .contains("idmint_segment_ids_served_total{tag=\"secret-tag\"}");
        // The server is shared with the other tests of this class, which may have made tags.
        assertThat((List<?>) s.get("/api/v1/status", "Authorization", "Bearer admin").json()
                .get("segments")).anySatisfy(t -> assertThat(t.toString()).contains("secret-tag"));
    }

    @Test
    void storeDownFromTheStart_segmentCallsAre503WithRetryAfter_snowflakeServesOn()
            throws Exception {
        Http down = new Http(storeDown.httpPort());
        // The store is asked on a thread of its own, which warns once it gave up.
        assertThat(WARNINGS.poll(30, TimeUnit.SECONDS)).startsWith("the segment store does not "
                + "answer yet (").endsWith("); segment calls answer 503 until it does");
        assertThat(WARNINGS).isEmpty();

        Http.Response ids = down.get("/api/v1/segments/order/ids");
        Map<String, Object> p = assertProblem(ids, 503, "segment tag 'order': both buffers are "
                + "empty and no range came from the store within 300ms");
        assertThat(p.get("type")).isEqualTo("urn:idmint:problem:not-ready");
        assertThat(ids.header("retry-after")).isEqualTo("1");
        Http.Response leaf = down.get("/api/segment/get/order");
        assertProblem(leaf, 503, "both buffers are empty");
        assertThat(leaf.header("retry-after")).isEqualTo("1");

        Http.Response created = create(down, "{\"tag\":\"order\"}");
        p = assertProblem(created, 503, "the segment store did not answer");
        assertThat(p.get("type")).isEqualTo("urn:idmint:problem:store-unavailable");
        assertThat(created.header("retry-after")).isEqualTo("1");
        Http.Response list = down.get("/api/v1/segments");
        assertProblem(list, 503, "the segment store did not answer");
        assertThat(list.header("retry-after")).isEqualTo("1");

        assertThat(down.get("/v1/id").status()).isEqualTo(200);
        assertThat(down.get("/api/snowflake/get/x").status()).isEqualTo(200);
        assertThat(down.get("/health/ready").status()).isEqualTo(200);
    }

    // ---------------------------------------------------------------- operations

    @Test
    void metricsAndStatus_showEachTag() {
        create(http, "{\"tag\":\"metered\",\"start\":1,\"step\":200}");
        for (int i = 0; i < 3; i++) {
            http.get("/api/v1/segments/metered/ids?count=100");
        }
        http.get("/api/v1/segments/metered/ids?count=0");

        String text = http.get("/metrics").body();

        assertThat(sample(text, "idmint_segment_ids_served_total{tag=\"metered\"}"))
                .isEqualTo(300);
        // 300 IDs from ranges of 200: the second range is in, maybe a third fetched already.
        assertThat(sample(text, "idmint_segment_ranges_fetched_total{tag=\"metered\"}"))
                .isBetween(2.0, 3.0);
        assertThat(sample(text, "idmint_segment_fetch_failures_total{tag=\"metered\"}"))
                .isZero();
        assertThat(sample(text, "idmint_segment_step{tag=\"metered\"}")).isPositive();
        assertThat(sample(text, "idmint_segment_remaining{tag=\"metered\"}")).isPositive();
        assertThat(sample(text, "idmint_segment_next_ready{tag=\"metered\"}")).isBetween(0.0,
                1.0);
        assertThat(sample(text, "idmint_segment_fetch_seconds_count{tag=\"metered\"}"))
                .isBetween(2.0, 3.0);
        assertThat(sample(text, "idmint_segment_fetch_seconds_sum{tag=\"metered\"}"))
                .isPositive();
        assertThat(text).contains("idmint_http_requests_total{route=\"/api/v1/segments/{tag}/ids"
                + "\",status=\"200\"} ", "idmint_http_requests_total{route=\"/api/v1/segments/"
                + "{tag}/ids\",status=\"400\"} ");

        Map<String, Object> status = http.get("/api/v1/status").json();
        List<?> segments = (List<?>) status.get("segments");
        assertThat(segments).anySatisfy(o -> {
            Map<?, ?> t = (Map<?, ?>) o;
            assertThat(t.get("tag")).isEqualTo("metered");
            assertThat(t.get("served")).isEqualTo(300L);
            assertThat(t.get("fetch_failures")).isEqualTo(0L);
            assertThat(new ArrayList<Object>(t.keySet())).containsExactly("tag", "served",
                    "step", "remaining", "next_ready", "ranges", "fetch_failures");
        });
    }

    @Test
    void codes_ofOneLength_decodeToTheValues_pastTheWidthOrWithoutAKeyAre503TakingNothing() {
        Http codes = new Http(autoCreating.httpPort());
        Http.Response r = codes.get("/api/v1/segments/ticket/codes?count=50");
        assertThat(r.status()).as(r.body()).isEqualTo(200);
        assertThat(r.json().get("tag")).isEqualTo("ticket");
        List<?> list = (List<?>) r.json().get("codes");
        // 20 bits: the key version, 4 symbols, the check symbol.
        assertThat(list).hasSize(50).doesNotHaveDuplicates()
                .allMatch(c -> ((String) c).matches("[0-9A-Z]{6}"));
        long last = 0;
        for (Object c : list) {
            Map<String, Object> d = codes.get("/api/v1/segments/ticket/codes/" + c).json();
            assertThat(d).containsEntry("tag", "ticket").containsEntry("code", c)
                    .containsEntry("key_version", 1L);
            long value = Long.parseLong((String) d.get("value"));
            assertThat(value).isGreaterThan(last);
            last = value;
        }
        String first = (String) list.get(0);
        assertThat(codes.get("/api/v1/segments/ticket/codes/" + first.toLowerCase()).json())
                .containsEntry("code", first).containsEntry("value", "1");
        assertThat(codes.get("/api/v1/segments/other/codes/" + first).json().get("value"))
                .as("another tag, another tweak").isNotEqualTo("1");
        Http.Response bad = codes.get("/api/v1/segments/ticket/codes/1ZZZZ");
        assertThat(bad.status()).isEqualTo(400);
        assertThat(bad.json().get("type")).isEqualTo("urn:idmint:problem:malformed-code");
        assertThat(codes.get("/api/v1/segments/ticket/codes/a/b").status()).isEqualTo(404);

        assertThat(create(codes, "{\"tag\":\"wide\",\"start\":1048574,\"step\":10}")
                .status()).isEqualTo(201);
        assertThat(codes.get("/api/v1/segments/wide/codes?count=2").status()).isEqualTo(200);
        Http.Response past = codes.get("/api/v1/segments/wide/codes");
        assertThat(past.status()).isEqualTo(503);
        assertThat(past.json().get("detail")).asString().contains("'wide'", "1048576",
                "codes.segment-bits=20");

        assertThat(create(http, "{\"tag\":\"nokey\",\"start\":7}").status()).isEqualTo(201);
        Http.Response none = http.get("/api/v1/segments/nokey/codes?count=5");
        assertThat(none.status()).isEqualTo(503);
        assertThat(none.json().get("type")).isEqualTo("urn:idmint:problem:not-configured");
        assertThat(http.get("/api/v1/segments/nokey/codes/100000").status()).isEqualTo(503);
        assertThat(ids(http.get("/api/v1/segments/nokey/ids"))).as("nothing was taken")
                .containsExactly(7L);
    }

    @Test
    void metrics_unknownTagsLeaveNoMeters() {
        assertThat(http.get("/api/v1/segments/ghost/ids").status()).isEqualTo(404);

        assertThat(http.get("/metrics").body()).doesNotContain("tag=\"ghost\"");
    }

    // ---------------------------------------------------------------- helpers

    static Http.Response create(Http http, String json) {
        return http.send("POST", "/api/v1/segments", HttpRequest.BodyPublishers.ofString(json),
                "Content-Type", JSON);
    }

    static List<Long> ids(Http.Response r) {
        assertThat(r.status()).as(r.body()).isEqualTo(200);
        List<Long> out = new ArrayList<>();
        for (Object o : (List<?>) r.json().get("ids")) {
            out.add(Long.parseLong((String) o));
        }
        return out;
    }

    /** One chunk of a chunked body; the empty one ends the body. */
    private static String chunk(String data) {
        return Integer.toHexString(data.length()) + "\r\n" + data + "\r\n";
    }

    /** Sends one request as written over a socket and reads the reply to the end. */
    private static String raw(Server to, String request) throws java.io.IOException {
        try (java.net.Socket s = new java.net.Socket("127.0.0.1", to.httpPort())) {
            s.setSoTimeout(10_000);
            s.getOutputStream().write(request.getBytes(java.nio.charset.StandardCharsets.UTF_8));
            s.getOutputStream().flush();
            return new String(s.getInputStream().readAllBytes(),
                    java.nio.charset.StandardCharsets.UTF_8);
        }
    }
}

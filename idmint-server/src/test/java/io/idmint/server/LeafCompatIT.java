package io.idmint.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.idmint.server.harness.Http;
import io.idmint.server.harness.TestServers;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Leaf's two endpoints both ways, on real in-process servers: idmint's answers by default, and
 * Leaf's server's with {@code leaf.compat=strict} (unknown tag, bad key, other methods, unknown
 * query parameters, no key, the store down; Tomcat's refusals, dot segments, slashes and path
 * parameters; Spring's suffix pattern and content negotiation; Boot's HTML error page). The
 * expected answers are those a real Leaf server (Meituan-Dianping/Leaf 86a6441, built from its
 * source) gave to the same requests (docs/migration.md). Leaf tag names such as
 * {@code order:2024} are served on every segment path.
 */
class LeafCompatIT {

    private static final String TEXT = "text/plain;charset=UTF-8";
    private static final String LEAF_JSON = "application/json;charset=UTF-8";
    private static final String PROBLEM = "application/problem+json";
    private static final String HTML = "text/html;charset=UTF-8";
    /** java.net.HttpURLConnection's Accept when none is set. */
    private static final String JAVA_ACCEPT = "text/html, image/gif, image/jpeg, *; q=.2, */*; "
            + "q=.2";

    @TempDir
    static Path data;

    private static Server plain;
    private static Server strict;
    private static Server strictStoreDown;
    private static Http idmint;
    private static Http leaf;
    private static Http leafDown;

    @BeforeAll
    static void start() {
        plain = TestServers.start(data.resolve("a"), "segment.fetch-timeout=10s");
        strict = TestServers.start(data.resolve("b"), "leaf.compat=strict",
                "segment.fetch-timeout=10s");
        // Nothing listens on port 1: every call to the store fails at once.
        strictStoreDown = TestServers.start(data.resolve("c"), "leaf.compat=strict",
                "segment.store=jdbc:postgresql://127.0.0.1:1/x?idmint.timeout=250ms",
                "segment.fetch-timeout=300ms");
        idmint = new Http(plain.httpPort());
        leaf = new Http(strict.httpPort());
        leafDown = new Http(strictStoreDown.httpPort());
        for (Http h : new Http[] {idmint, leaf}) {
            for (String tag : new String[] {"order", "order:2024"}) {
                Http.Response r = h.send("POST", "/api/v1/segments", HttpRequest.BodyPublishers
                        .ofString("{\"tag\":\"" + tag + "\",\"start\":100,\"step\":10}"),
                        "Content-Type", "application/json");
                assertThat(r.status()).as(r.body()).isEqualTo(201);
            }
        }
    }

    @AfterAll
    static void stop() {
        for (Server s : new Server[] {plain, strict, strictStoreDown}) {
            if (s != null) {
                s.close();
            }
        }
    }

    /** Leaf's 500: Spring Boot 1.5's error JSON around Leaf's {@code Result}. */
    private static void assertLeafError(Http.Response r, String path, long code) {
        assertThat(r.status()).as(r.body()).isEqualTo(500);
        assertThat(r.header("content-type")).isEqualTo(LEAF_JSON);
        Map<String, Object> json = r.json();
        assertThat(json).containsOnlyKeys("timestamp", "status", "error", "exception", "message",
                "path");
        assertThat(json).containsEntry("error", "Internal Server Error")
                .containsEntry("exception", "com.sankuai.inf.leaf.server.exception."
                        + "LeafServerException")
                .containsEntry("message", "Result{id=" + code + ", status=EXCEPTION}")
                .containsEntry("path", path);
        assertThat(((Number) json.get("status")).intValue()).isEqualTo(500);
        assertThat(((Number) json.get("timestamp")).longValue()).isPositive();
    }

    /** Spring's 404: Boot's error JSON without an exception. */
    private static void assertLeafNotFound(Raw r, String path) {
        assertThat(r.status()).as(path).isEqualTo(404);
        assertThat(r.header("content-type")).isEqualTo(LEAF_JSON);
        assertThat(Http.object(r.body())).containsEntry("error", "Not Found")
                .containsEntry("message", "No message available").containsEntry("path", path)
                .doesNotContainKey("exception");
    }

    private static void assertProblem(Http.Response r, int status, String detail) {
        assertThat(r.status()).as(r.body()).isEqualTo(status);
        assertThat(r.header("content-type")).isEqualTo(PROBLEM);
        assertThat((String) r.json().get("detail")).contains(detail);
    }

    private static long id(Http.Response r) {
        assertThat(r.status()).as(r.body()).isEqualTo(200);
        assertThat(r.header("content-type")).isEqualTo(TEXT);
        return Long.parseLong(r.body());
    }

    private static long id(Raw r, String type) {
        assertThat(r.status()).as(r.body()).isEqualTo(200);
        assertThat(r.header("content-type")).isEqualTo(type);
        return Long.parseLong(r.body());
    }

    /** A response read off a socket, for request targets java.net.http will not send as is. */
    record Raw(int status, Map<String, String> headers, String body) {
        String header(String name) {
            return headers.get(name);
        }
    }

    /** Sends one request as written (with {@code Connection: close}) and reads the answer. */
    static Raw raw(Server to, String method, String target, String... headers) {
        StringBuilder req = new StringBuilder(method).append(' ').append(target)
                .append(" HTTP/1.1\r\nHost: x\r\n");
        for (int i = 0; i < headers.length; i += 2) {
            req.append(headers[i]).append(": ").append(headers[i + 1]).append("\r\n");
        }
        try (Socket s = new Socket("127.0.0.1", to.httpPort())) {
            s.setSoTimeout(10_000);
            s.getOutputStream().write(req.append("Connection: close\r\n\r\n").toString()
                    .getBytes(StandardCharsets.UTF_8));
            return read(s.getInputStream(), !method.equals("HEAD"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** One response: the head, then as many body bytes as Content-Length says. */
    private static Raw read(InputStream in, boolean body) throws IOException {
        StringBuilder head = new StringBuilder();
        while (!head.toString().endsWith("\r\n\r\n")) {
            int b = in.read();
            if (b < 0) {
                throw new IOException("closed after " + head);
            }
            head.append((char) b);
        }
        String[] lines = head.toString().split("\r\n");
        Map<String, String> headers = new HashMap<>();
        for (int i = 1; i < lines.length; i++) {
            int colon = lines[i].indexOf(':');
            headers.put(lines[i].substring(0, colon).toLowerCase(java.util.Locale.ROOT),
                    lines[i].substring(colon + 1).trim());
        }
        int length = body ? Integer.parseInt(headers.getOrDefault("content-length", "0")) : 0;
        return new Raw(Integer.parseInt(lines[0].split(" ")[1]), headers,
                new String(in.readNBytes(length), StandardCharsets.UTF_8));
    }

    /**
     * Whether the server closes the connection after answering {@code target}, unasked: a
     * second request on it gets no answer.
     */
    private static boolean closesAfter(Server to, String target) throws IOException {
        try (Socket s = new Socket("127.0.0.1", to.httpPort())) {
            s.setSoTimeout(10_000);
            String get = "GET %s HTTP/1.1\r\nHost: x\r\n\r\n";
            s.getOutputStream().write(get.formatted(target).getBytes(StandardCharsets.UTF_8));
            read(s.getInputStream(), true);
            try {
                s.getOutputStream().write(get.formatted("/api/segment/get/order")
                        .getBytes(StandardCharsets.UTF_8));
                return s.getInputStream().read() < 0;
            } catch (IOException e) {
                return true; // reset: closed
            }
        }
    }

    @Test
    void knownTag_isTheIdAsText_bothWays() {
        for (Http h : new Http[] {idmint, leaf}) {
            long first = id(h.get("/api/segment/get/order"));
            assertThat(id(h.get("/api/segment/get/order"))).isEqualTo(first + 1);
            assertThat(id(h.get("/api/snowflake/get/anything"))).isPositive();
        }
    }

    @Test
    void leafTagNames_areServedOnEverySegmentPath_urlDecoded() {
        for (Http h : new Http[] {idmint, leaf}) {
            long a = id(h.get("/api/segment/get/order:2024"));
            long b = id(h.get("/api/segment/get/order%3A2024"));
            assertThat(b).isEqualTo(a + 1);
            Http.Response ids = h.get("/api/v1/segments/order%3A2024/ids?count=2");
            assertThat(ids.status()).as(ids.body()).isEqualTo(200);
            assertThat(ids.body()).isEqualTo("{\"tag\":\"order:2024\",\"ids\":[\"" + (b + 1)
                    + "\",\"" + (b + 2) + "\"]}");
        }
        assertProblem(idmint.get("/api/v1/segments/a%2Fb/ids"), 400,
                "segment tag 'a/b' must be 1 to 128 printable ASCII characters");
    }

    @Test
    void unknownTag_idmint404Problem_leaf500Json() {
        assertProblem(idmint.get("/api/segment/get/nope"), 404, "segment tag 'nope' does not "
                + "exist");
        assertLeafError(leaf.get("/api/segment/get/nope"), "/api/segment/get/nope", -2);
    }

    @Test
    void badKey_idmint400Problem_leafAnUnknownKey_orTomcatsAnswer() {
        for (String path : new String[] {"/api/segment/get/a%20b", "/api/segment/get/a%2Fb",
                "/api/segment/get/%2E%2E", "/api/segment/get/a%3Fb"}) {
            assertThat(idmint.get(path).status()).as(path).isEqualTo(400);
        }
        assertLeafError(leaf.get("/api/segment/get/a%20b"), "/api/segment/get/a%20b", -2);
        assertLeafError(leaf.get("/api/segment/get/a%3Fb"), "/api/segment/get/a%3Fb", -2);
        // Tomcat refuses an encoded slash before Leaf sees it, and resolves an encoded ..
        assertThat(raw(strict, "GET", "/api/segment/get/a%2Fb").status()).isEqualTo(400);
        assertLeafNotFound(raw(strict, "GET", "/api/segment/get/%2E%2E"),
                "/api/segment/get/%2E%2E");
    }

    @Test
    void otherMethods_idmint405_leafServesThem() {
        for (String path : new String[] {"/api/segment/get/order", "/api/snowflake/get/k"}) {
            for (String method : new String[] {"POST", "PUT", "DELETE", "PATCH"}) {
                Http.Response refused = idmint.send(method, path);
                assertProblem(refused, 405, "method " + method + " is not allowed");
                assertThat(refused.header("allow")).isEqualTo("GET");
                assertThat(id(leaf.send(method, path))).as(method + " " + path).isPositive();
            }
            assertThat(idmint.send("OPTIONS", path).status()).isEqualTo(405);
            Http.Response options = leaf.send("OPTIONS", path);
            assertThat(options.status()).isEqualTo(200);
            assertThat(options.header("allow")).isEqualTo("GET,HEAD,POST,PUT,PATCH,DELETE,OPTIONS");
            assertThat(options.body()).isEmpty();
            assertThat(idmint.send("HEAD", path).status()).isEqualTo(405);
            Http.Response head = leaf.send("HEAD", path);
            assertThat(head.status()).isEqualTo(200);
            assertThat(head.header("content-type")).isEqualTo(TEXT);
            assertThat(head.body()).isEmpty();
            assertThat(Integer.parseInt(head.header("content-length"))).isPositive();
        }
        // a HEAD issues an ID in Leaf, as its GET does: the next one is two further; an
        // OPTIONS issues none
        long before = id(leaf.get("/api/segment/get/order"));
        leaf.send("HEAD", "/api/segment/get/order");
        leaf.send("OPTIONS", "/api/segment/get/order");
        assertThat(id(leaf.get("/api/segment/get/order"))).isEqualTo(before + 2);
        // any other method is served as well; CONNECT is not (a 2xx to it opens a tunnel)
        assertThat(id(raw(strict, "FOO", "/api/segment/get/order"), TEXT)).isPositive();
        Raw connect = raw(strict, "CONNECT", "/api/segment/get/order");
        assertThat(connect.status()).isEqualTo(405);
        assertThat(connect.header("content-type")).isEqualTo(PROBLEM);
        // OPTIONS wherever Spring matches a mapping, without calling it
        for (String path : new String[] {"/api/segment/get/order/", "/api/segment/get/.json"}) {
            Raw r = raw(strict, "OPTIONS", path);
            assertThat(r.status()).as(path).isEqualTo(200);
            assertThat(r.header("allow")).isEqualTo("GET,HEAD,POST,PUT,PATCH,DELETE,OPTIONS");
        }
    }

    @Test
    void trace_isTomcats405_withNoBodyAndItsAllow() {
        for (String path : new String[] {"/api/segment/get/order", "/api/snowflake/get/k",
                "/api/segment/get/"}) {
            Raw r = raw(strict, "TRACE", path);
            assertThat(r.status()).as(path).isEqualTo(405);
            assertThat(r.header("allow")).isEqualTo("HEAD, DELETE, POST, GET, OPTIONS, PUT");
            assertThat(r.header("content-type")).isNull();
            assertThat(r.body()).isEmpty();
        }
        // Tomcat reads the path first
        assertThat(raw(strict, "TRACE", "/api/segment/get/a%2Fb").status()).isEqualTo(400);
    }

    @Test
    void tomcatsRefusals_are400WithNoBody_andCloseTheConnection() {
        for (String target : new String[] {"/api/segment/get/a%2Fb", "/api/segment/get/a%2fb",
                "/api/segment/get/a%5Cb", "/api/segment/get/%00", "/api/segment/get/a%ZZ",
                "/api/segment/get/a%2", "/api/segment/get/a|b", "/api/segment/get/a{b",
                "/api/segment/get/order?a|b", "/api/snowflake/get/a%2Fb",
                "/api/segment/get/../../../../x"}) {
            Raw r = raw(strict, "GET", target);
            assertThat(r.status()).as(target).isEqualTo(400);
            assertThat(r.header("content-type")).as(target).isNull();
            assertThat(r.body()).as(target).isEmpty();
            assertThat(r.header("connection")).as(target).isEqualTo("close");
        }
    }

    @Test
    void dotSegments_areResolvedAsTomcatResolvesThem() {
        for (String path : new String[] {"/api/segment/get/..", "/api/segment/get/%2e%2E",
                "/api/segment/get/.", "/api/segment/get/%2E", "/api/segment/get/order/.",
                "/api/segment/get/order/..", "/api/segment/get/.;x", "/api/snowflake/get/.."}) {
            assertLeafNotFound(raw(strict, "GET", path), path);
        }
        long first = id(raw(strict, "GET", "/api/segment/get/x/../order"), TEXT);
        assertThat(id(raw(strict, "GET", "/api/segment/get/./order"), TEXT))
                .isEqualTo(first + 1);
        assertThat(id(raw(strict, "GET", "/api/x/../segment/get/order"), TEXT))
                .isEqualTo(first + 2);
    }

    @Test
    void slashesAndPathParameters_areTomcatsAndSpringsReading() {
        long first = id(raw(strict, "GET", "/api/segment/get/order/"), TEXT);
        String[] same = {"/api/segment/get/order//", "/api/segment/get//order",
            "//api/segment/get/order", "/api;v=1/segment/get/order",
            "/api/segment/get/order;jsessionid=1", "/api/segment/get/order;a=b/"};
        for (int i = 0; i < same.length; i++) {
            assertThat(id(raw(strict, "GET", same[i]), TEXT)).as(same[i])
                    .isEqualTo(first + 1 + i);
        }
        assertProblem(idmint.get("/api/segment/get/order/"), 404, "no endpoint at path");
    }

    @Test
    void suffixPattern_cutsTheKeyAtItsLastDot_andAnExtensionNamesTheType() {
        long first = id(raw(strict, "GET", "/api/segment/get/order.json"),
                "application/json;charset=UTF-8");
        assertThat(id(raw(strict, "GET", "/api/segment/get/order.XML", "Accept", "text/plain"),
                "application/xml;charset=UTF-8")).isEqualTo(first + 1);
        Raw v2 = raw(strict, "GET", "/api/segment/get/order.v2");
        assertThat(id(v2, TEXT)).isEqualTo(first + 2);
        // Spring's guard against reflected downloads, for an extension it does not know
        assertThat(v2.header("content-disposition")).isEqualTo("inline;filename=f.txt");
        assertLeafError(leaf.get("/api/segment/get/order.json.v2"),
                "/api/segment/get/order.json.v2", -2);
        long tagged = id(leaf.get("/api/segment/get/order:2024"));
        assertThat(id(raw(strict, "GET", "/api/segment/get/order:2024.x"), TEXT))
                .isEqualTo(tagged + 1);
        // with a trailing slash the key is the whole segment
        assertLeafError(leaf.get("/api/segment/get/order.json/"),
                "/api/segment/get/order.json/", -2);
        assertThat(id(raw(strict, "GET", "/api/snowflake/get/k.json"),
                "application/json;charset=UTF-8")).isPositive();
        for (String path : new String[] {"/api/segment/get/.json", "/api/snowflake/get/.v2"}) {
            Http.Response none = leaf.get(path);
            assertThat(none.status()).isEqualTo(500);
            assertThat(none.json()).containsEntry("exception", "com.sankuai.inf.leaf.server."
                    + "exception.NoKeyException").containsEntry("message", "Key is none")
                    .containsEntry("path", path);
        }
        assertProblem(idmint.get("/api/segment/get/order.json"), 404, "segment tag "
                + "'order.json' does not exist");
    }

    @Test
    void accept_namesTheIdsType_asSpringNegotiatesIt() {
        Map<String, String> types = new java.util.LinkedHashMap<>();
        types.put("application/json", "application/json;charset=UTF-8");
        types.put("application/xml", "application/xml;charset=UTF-8");
        types.put("image/png", "image/png;charset=UTF-8");
        types.put(JAVA_ACCEPT, HTML);
        types.put("text/plain, application/json, application/*+json, */*", TEXT);
        types.put("*/*, text/html;q=0.1", TEXT);
        types.put("text/plain;q=0.5, application/json;q=0.9", "application/json;charset=UTF-8");
        types.put("text/*", TEXT);
        types.put("application/*", "application/json;charset=UTF-8");
        types.put("application/vnd.x+json", "application/vnd.x+json;charset=UTF-8");
        types.put("text/plain;format=flowed", "text/plain; format=flowed;charset=UTF-8");
        types.put("text/plain;charset=\"iso-8859-1\"", "text/plain;charset=iso-8859-1");
        types.put("TEXT/PLAIN", TEXT);
        for (Map.Entry<String, String> t : types.entrySet()) {
            Http.Response r = leaf.get("/api/segment/get/order", "Accept", t.getKey());
            assertThat(r.status()).as(t.getKey()).isEqualTo(200);
            assertThat(r.header("content-type")).as(t.getKey()).isEqualTo(t.getValue());
            assertThat(Long.parseLong(r.body())).isPositive();
        }
        for (String accept : new String[] {"application/*+json", "foo", "text/plain;q=2",
                "text/plain;charset=bogus"}) {
            Http.Response r = leaf.get("/api/segment/get/order", "Accept", accept);
            assertThat(r.status()).as(accept).isEqualTo(406);
            assertThat(r.body()).isEmpty();
        }
        assertThat(id(raw(strict, "GET", "/api/segment/get/order.json", "Accept", "text/html"),
                "application/json;charset=UTF-8")).isPositive();
        assertThat(id(idmint.get("/api/segment/get/order", "Accept", "application/json")))
                .isPositive();
    }

    @Test
    void errors_areBootsHtmlPage_itsJson_or406_asAcceptAsks() {
        String path = "/api/segment/get/nope";
        for (String accept : new String[] {"text/html", JAVA_ACCEPT, "*/*, text/html;q=0.1",
                "application/json, text/html", "text/*"}) {
            Http.Response r = leaf.get(path, "Accept", accept);
            assertThat(r.status()).as(accept).isEqualTo(500);
            assertThat(r.header("content-type")).as(accept).isEqualTo(HTML);
            assertThat(r.header("content-language")).isEqualTo("en");
            assertThat(r.body()).startsWith("<html><body><h1>Whitelabel Error Page</h1>")
                    .contains("<div>There was an unexpected error (type=Internal Server Error,"
                            + " status=500).</div><div>Result{id=-2, status=EXCEPTION}</div>");
        }
        assertLeafError(leaf.get(path, "Accept", "text/plain, application/json, "
                + "application/*+json, */*"), path, -2);
        Http.Response vendor = leaf.get(path, "Accept", "application/vnd.x+json");
        assertThat(vendor.status()).isEqualTo(500);
        assertThat(vendor.header("content-type")).isEqualTo("application/vnd.x+json;"
                + "charset=UTF-8");
        for (String accept : new String[] {"application/xml", "text/plain", "image/png",
                "foo"}) {
            Http.Response r = leaf.get(path, "Accept", accept);
            assertThat(r.status()).as(accept).isEqualTo(406);
            assertThat(r.header("content-type")).isNull();
            assertThat(r.body()).isEmpty();
        }
        Http.Response noKey = leaf.get("/api/segment/get/", "Accept", "text/html");
        assertThat(noKey.status()).isEqualTo(404);
        assertThat(noKey.header("content-type")).isEqualTo(HTML);
        assertThat(noKey.body()).contains("(type=Not Found, status=404).</div><div>No message "
                + "available</div>");
        assertProblem(idmint.get(path, "Accept", "text/html"), 404, "does not exist");
    }

    @Test
    void a500_closesTheConnection_as_Tomcat_does_a404AndA200_doNot() throws IOException {
        assertThat(closesAfter(strict, "/api/segment/get/nope")).isTrue();
        assertThat(closesAfter(strict, "/api/segment/get/")).isFalse();
        assertThat(closesAfter(strict, "/api/segment/get/order")).isFalse();
        assertThat(leaf.get("/api/segment/get/nope").header("connection")).isEqualTo("close");
    }

    @Test
    void tags_compareExactly() {
        assertLeafError(leaf.get("/api/segment/get/ORDER"), "/api/segment/get/ORDER", -2);
        assertProblem(idmint.get("/api/segment/get/ORDER"), 404, "does not exist");
    }

    @Test
    void everyResponse_carriesADate_inBothModes() {
        Instant before = Instant.now().minusSeconds(2);
        for (Server s : new Server[] {plain, strict}) {
            for (String target : new String[] {"/api/segment/get/order", "/api/segment/get/nope",
                    "/api/v1/ids?count=2", "/health/live", "/nowhere", "/api/segment/get/a%2Fb",
                    "/bad path"}) {
                Raw r = raw(s, "GET", target);
                String date = r.header("date");
                assertThat(date).as(target).matches("[A-Z][a-z]{2}, \\d{2} [A-Z][a-z]{2} "
                        + "\\d{4} \\d{2}:\\d{2}:\\d{2} GMT");
                Instant at = ZonedDateTime.parse(date, DateTimeFormatter.RFC_1123_DATE_TIME)
                        .toInstant();
                assertThat(at).as(target).isBetween(before, Instant.now()
                        .plus(Duration.ofSeconds(2)));
            }
        }
    }

    @Test
    void unknownQueryParameters_idmint400_leafIgnoresThem() {
        for (String path : new String[] {"/api/segment/get/order?x=1&y",
                "/api/snowflake/get/k?count=5"}) {
            assertProblem(idmint.get(path), 400, "unknown query parameter");
            assertThat(id(leaf.get(path))).isPositive();
        }
    }

    @Test
    void noKey_bothAre404_inTheirOwnJson() {
        for (String path : new String[] {"/api/segment/get/", "/api/snowflake/get/",
                "/api/segment/get/a/b"}) {
            assertProblem(idmint.get(path), 404, "no endpoint at path");
            Http.Response r = leaf.get(path);
            assertThat(r.status()).isEqualTo(404);
            assertThat(r.header("content-type")).isEqualTo(LEAF_JSON);
            assertThat(r.json()).containsEntry("error", "Not Found")
                    .containsEntry("message", "No message available").containsEntry("path", path)
                    .doesNotContainKey("exception");
        }
    }

    @Test
    void storeDown_leafAnswers500WithBothSegmentsEmpty() {
        assertLeafError(leafDown.get("/api/segment/get/order"), "/api/segment/get/order", -3);
        assertThat(id(leafDown.get("/api/snowflake/get/k"))).isPositive();
    }
}

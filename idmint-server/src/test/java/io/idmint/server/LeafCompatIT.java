package io.idmint.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpRequest;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Leaf's two endpoints both ways, on real in-process servers: idmint's answers by default, and
 * Leaf's server's with {@code leaf.compat=strict} (unknown tag, bad key, other methods, unknown
 * query parameters, no key, the store down). Leaf tag names such as {@code order:2024} are
 * served on every segment path.
 */
class LeafCompatIT {

    private static final String TEXT = "text/plain;charset=UTF-8";
    private static final String LEAF_JSON = "application/json;charset=UTF-8";
    private static final String PROBLEM = "application/problem+json";

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
    void badKey_idmint400Problem_leafAnUnknownKey() {
        for (String path : new String[] {"/api/segment/get/a%20b", "/api/segment/get/a%2Fb",
                "/api/segment/get/%2E%2E", "/api/segment/get/a%3Fb"}) {
            assertThat(idmint.get(path).status()).as(path).isEqualTo(400);
            assertLeafError(leaf.get(path), path, -2);
        }
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
        assertThat(leaf.send("TRACE", "/api/segment/get/order").status()).isEqualTo(405);
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

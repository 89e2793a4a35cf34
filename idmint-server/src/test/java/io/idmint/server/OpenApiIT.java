package io.idmint.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.idmint.server.api.Problem;
import io.idmint.server.cli.CodesCliTest;
import io.idmint.server.harness.Http;
import io.idmint.server.harness.NodeTools;
import io.idmint.server.harness.TestServers;
import io.idmint.server.http.Route;
import io.idmint.server.json.Json;
import java.io.InputStream;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The OpenAPI 3.1 document ({@code src/main/resources/openapi.json}, served at
 * {@code /openapi.json}): valid by a standard validator, describing exactly the routes and
 * problem types the code has, and matching what a real server answers (checked by
 * {@code src/test/node/openapi-check.mjs}).
 */
class OpenApiIT {

    private static final String KEY = CodesCliTest.KEY;
    /** Routes that are no path: any other path, a request the decoder refused. */
    private static final Set<Route> NOT_PATHS = EnumSet.of(Route.UNMATCHED, Route.INVALID);

    @TempDir
    static Path data;
    private static Server server;
    private static Server limited;
    private static Http http;
    private static byte[] document;

    @BeforeAll
    static void start() throws Exception {
        server = TestServers.start(data.resolve("a"), "codes.key=" + KEY, "auth.token=api",
                "auth.admin-token=admin");
        limited = TestServers.start(data.resolve("b"), "max-count=500", "rate-limit=500");
        http = new Http(server.httpPort());
        try (InputStream in = OpenApiIT.class.getResourceAsStream("/openapi.json")) {
            document = in.readAllBytes();
        }
    }

    @AfterAll
    static void stop() {
        for (Server s : new Server[] {server, limited}) {
            if (s != null) {
                s.close();
            }
        }
    }

    @Test
    void served_isTheShippedDocument() {
        Http.Response r = http.get("/openapi.json");

        assertThat(r.status()).isEqualTo(200);
        assertThat(r.header("content-type")).isEqualTo("application/json");
        assertThat(r.body()).isEqualTo(new String(document, StandardCharsets.UTF_8));
        assertThat(http.send("HEAD", "/openapi.json").status()).isEqualTo(200);
    }

    @Test
    void served_countBound_isTheServersMaxCount() {
        Map<String, Object> served = new Http(limited.httpPort()).get("/openapi.json").json();

        assertThat(count(served).get("maximum")).isEqualTo(500L);
        assertThat(count(doc()).get("maximum")).isEqualTo(10_000L);
        assertThat(count(served).get("minimum")).isEqualTo(1L);
    }

    private static Map<String, Object> count(Map<String, Object> document) {
        return map(map(map(document.get("components")).get("schemas")).get("Count"));
    }

    @Test
    void paths_areExactlyTheServersRoutes_withTheirMethods() {
        Map<String, Object> paths = map(doc().get("paths"));
        List<Route> routes = Arrays.stream(Route.values()).filter(r -> !NOT_PATHS.contains(r))
                .toList();

        assertThat(new TreeSet<>(paths.keySet())).isEqualTo(routes.stream().map(Route::label)
                .collect(Collectors.toCollection(TreeSet::new)));
        for (Route route : routes) {
            Set<String> methods = map(paths.get(route.label())).keySet();
            Set<String> allowed = Arrays.stream(route.allow().split(", "))
                    .map(m -> m.toLowerCase(java.util.Locale.ROOT)).collect(Collectors.toSet());
            assertThat(allowed).as(route.label()).containsAll(methods);
            assertThat(methods).as(route.label()).contains("get");
            assertThat(methods.contains("post")).as(route.label()).isEqualTo(route.posts());
        }
    }

    @Test
    void problemTypes_areExactlyTheOnesTheServerSends() {
        Set<String> sent = Arrays.stream(Problem.values())
                .map(p -> (String) Http.object(p.json("x")).get("type"))
                .collect(Collectors.toCollection(TreeSet::new));
        Map<String, Object> problem = map(map(map(doc().get("components")).get("schemas"))
                .get("Problem"));
        List<?> documented = (List<?>) map(map(problem.get("properties")).get("type"))
                .get("enum");
        Set<String> listed = ((List<?>) doc().get("x-problem-types")).stream()
                .map(t -> (String) map(t).get("type"))
                .collect(Collectors.toCollection(TreeSet::new));

        assertThat(new TreeSet<>(documented.stream().map(String.class::cast).toList()))
                .isEqualTo(sent);
        assertThat(listed).isEqualTo(sent);
    }

    @Test
    void validator_acceptsTheDocument_andEverySampledAnswer() throws Exception {
        List<Map<String, Object>> samples = new ArrayList<>();
        String api = "Bearer api";
        String admin = "Bearer admin";
        String id = (String) sample(samples, http, "/v1/id", "/v1/id", 200, api).json()
                .get("id");
        sample(samples, http, "/v1/ids", "/v1/ids?count=3", 200, api);
        sample(samples, http, "/v1/ids", "/v1/ids?count=0", 400, api);
        sample(samples, http, "/v1/ids", "/v1/ids?count=x", 400, api);
        sample(samples, http, "/v1/ids", "/v1/ids?size=1", 400, api);
        sample(samples, http, "/v1/ids", "/v1/ids", 401, null);
        sample(samples, http, "/v1/id/decode", "/v1/id/decode?id=" + id, 200, admin);
        sample(samples, http, "/v1/id/decode", "/v1/id/decode?id=" + id, 403, api);
        sample(samples, http, "/v1/id/decode", "/v1/id/decode?id=zz", 400, admin);
        sample(samples, http, "/api/v1/ids", "/api/v1/ids?count=2", 200, api);
        sample(samples, http, "/api/v1/ids/{id}", "/api/v1/ids/" + id + "?format=decimal", 200,
                admin);
        sample(samples, http, "/api/v1/ids/{id}", "/api/v1/ids/" + id + "?format=roman", 400,
                admin);
        String code = (String) ((List<?>) sample(samples, http, "/api/v1/codes",
                "/api/v1/codes?count=2", 200, api).json().get("codes")).get(0);
        sample(samples, http, "/api/v1/codes/{code}", "/api/v1/codes/" + code, 200, admin);
        sample(samples, http, "/api/v1/codes/{code}", "/api/v1/codes/0000", 400, admin);
        sample(samples, http, "/api/v1/uuids", "/api/v1/uuids?count=2", 200, api);
        sample(samples, http, "/api/v1/objectids", "/api/v1/objectids?count=2", 200, api);
        sample(samples, http, "/api/v1/flakes", "/api/v1/flakes", 503, api);
        sample(samples, http, "/api/v1/range", "/api/v1/range?from=2026-11-24&to=2026-11-25",
                200, api);
        sample(samples, http, "/api/v1/range",
                "/api/v1/range?from=2026-11-24&to=2026-11-25&kind=uuid7", 200, api);
        sample(samples, http, "/api/v1/range", "/api/v1/range?from=2026-11-24", 400, api);
        sample(samples, http, "/api/v1/segments", "/api/v1/segments", 200, admin);
        Http.Response created = http.send("POST", "/api/v1/segments",
                HttpRequest.BodyPublishers.ofString("{\"tag\":\"order\",\"start\":1,\"step\":10}"),
                "Authorization", admin, "Content-Type", "application/json");
        record(samples, "/api/v1/segments", "post", created, 201);
        Http.Response again = http.send("POST", "/api/v1/segments",
                HttpRequest.BodyPublishers.ofString("{\"tag\":\"order\"}"),
                "Authorization", admin, "Content-Type", "application/json");
        record(samples, "/api/v1/segments", "post", again, 409);
        sample(samples, http, "/api/v1/segments", "/api/v1/segments", 200, admin);
        sample(samples, http, "/api/v1/segments/{tag}/ids", "/api/v1/segments/order/ids?count=3",
                200, api);
        sample(samples, http, "/api/v1/segments/{tag}/ids", "/api/v1/segments/nope/ids", 404,
                api);
        sample(samples, http, "/api/segment/get/{tag}", "/api/segment/get/order", 200, api);
        sample(samples, http, "/api/snowflake/get/{key}", "/api/snowflake/get/any", 200, api);
        sample(samples, http, "/api/v1/status", "/api/v1/status", 200, null);
        sample(samples, http, "/health/live", "/health/live", 200, null);
        sample(samples, http, "/health/ready", "/health/ready", 200, null);
        sample(samples, http, "/metrics", "/metrics", 200, null);
        sample(samples, http, "/", "/", 200, null);
        sample(samples, http, "/openapi.json", "/openapi.json", 200, null);
        sample(samples, http, "/health/live", "/health/live?x=1", 400, null);
        record(samples, "/v1/id", "get", http.send("DELETE", "/v1/id"), 405);
        Http limitedHttp = new Http(limited.httpPort());
        sample(samples, limitedHttp, "/v1/ids", "/v1/ids?count=501", 400, null);
        sample(samples, limitedHttp, "/v1/ids", "/v1/ids?count=500", 200, null);
        sample(samples, limitedHttp, "/v1/ids", "/v1/ids?count=500", 429, null);

        Path docFile = data.resolve("openapi.json");
        Files.write(docFile, document);
        Path samplesFile = data.resolve("samples.json");
        Files.writeString(samplesFile, samplesJson(samples));
        String out = NodeTools.run("openapi-check.mjs", docFile.toAbsolutePath().toString(),
                samplesFile.toAbsolutePath().toString());

        Map<String, Object> result = Http.object(out.trim());
        assertThat(result.get("valid")).as(out).isEqualTo(true);
        assertThat(result.get("version")).as(out).isEqualTo("3.1");
        List<?> checked = (List<?>) result.get("samples");
        assertThat(checked).as(out).hasSize(samples.size());
        for (Object c : checked) {
            assertThat((List<?>) map(c).get("errors")).as("%s", map(c).get("sample")).isEmpty();
        }
    }

    /** GETs {@code uri}, expects {@code status}, and records the answer for the checker. */
    private static Http.Response sample(List<Map<String, Object>> samples, Http on, String path,
            String uri, int status, String authorization) {
        Http.Response r = authorization == null ? on.get(uri)
                : on.get(uri, "Authorization", authorization);
        return record(samples, path, "get", r, status);
    }

    private static Http.Response record(List<Map<String, Object>> samples, String path,
            String method, Http.Response r, int status) {
        assertThat(r.status()).as("%s %s: %s", method, path, r.body()).isEqualTo(status);
        String type = r.header("content-type");
        samples.add(Map.of("path", path, "method", method, "status", Integer.toString(status),
                "contentType", type == null ? "" : type, "body", r.body()));
        return r;
    }

    private static String samplesJson(List<Map<String, Object>> samples) {
        StringBuilder sb = new StringBuilder("[");
        for (Map<String, Object> s : samples) {
            Json j = new Json();
            s.forEach((k, v) -> j.add(k, (String) v));
            sb.append(sb.length() > 1 ? "," : "").append(j);
        }
        return sb.append(']').toString();
    }

    private static Map<String, Object> doc() {
        return Http.object(new String(document, StandardCharsets.UTF_8));
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Object o) {
        return (Map<String, Object>) o;
    }
}

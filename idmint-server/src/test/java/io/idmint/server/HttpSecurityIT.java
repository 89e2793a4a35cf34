package io.idmint.server;

import static io.idmint.server.HttpApiIT.assertProblem;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idmint.server.harness.Http;
import io.idmint.server.harness.TestServers;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A server with both tokens and a rate limit on: 401, 403, 429 and what stays open. */
class HttpSecurityIT {

    private static final String API = "api-secret";
    private static final String ADMIN = "admin-secret";
    private static final int LIMIT = 1000;

    @TempDir
    static Path data;

    private static Server server;
    private static Http http;

    @BeforeAll
    static void start() {
        server = TestServers.start(data.resolve("auth"), "auth.token=" + API,
                "auth.admin-token=" + ADMIN);
        http = new Http(server.httpPort());
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
    }

    @Test
    void apiCalls_needAToken() {
        Http.Response none = http.get("/v1/id");
        assertProblem(none, 401, "needs an Authorization: Bearer token");
        assertThat(none.header("www-authenticate")).isEqualTo("Bearer realm=\"idmint\"");
        assertProblem(http.get("/v1/id", "Authorization", "Bearer wrong"), 401, "not valid");
        assertProblem(http.get("/api/v1/ids", "Authorization", "Basic " + API), 401, "");

        assertThat(http.get("/v1/id", "Authorization", "Bearer " + API).status()).isEqualTo(200);
        assertThat(http.get("/api/v1/ids", "Authorization", "bearer " + ADMIN).status())
                .isEqualTo(200);
    }

    @Test
    void tokenIsCheckedBeforeParameters() {
        assertProblem(http.get("/v1/ids?count=abc"), 401, "Bearer");
        assertProblem(http.get("/v1/ids?count=abc", "Authorization", "Bearer " + API), 400,
                "'abc'");
    }

    @Test
    void decode_isAnAdminCall() {
        long id = Long.parseLong((String) http.get("/v1/id", "Authorization", "Bearer " + API)
                .json().get("id"));

        for (String path : new String[] {"/v1/id/decode?id=" + id, "/api/v1/ids/" + id}) {
            assertProblem(http.get(path), 401, "Bearer");
            assertProblem(http.get(path, "Authorization", "Bearer " + API), 403, "admin");
            assertThat(http.get(path, "Authorization", "Bearer " + ADMIN).status()).as(path)
                    .isEqualTo(200);
        }
    }

    @Test
    void operations_needNoToken() {
        for (String path : new String[] {"/health/live", "/health/ready", "/metrics", "/",
            "/api/v1/status"}) {
            assertThat(http.get(path).status()).as(path).isEqualTo(200);
        }
    }

    @Test
    void rateLimit_is429WithRetryAfter_perClient_andIssuesNothing() {
        Server limited = TestServers.start(data.resolve("limited"), "auth.token=" + API,
                "auth.admin-token=" + ADMIN, "rate-limit=" + LIMIT, "max-count=" + LIMIT);
        try {
            Http h = new Http(limited.httpPort());
            assertThat(h.get("/v1/ids?count=" + LIMIT, "Authorization", "Bearer " + ADMIN)
                    .status()).isEqualTo(200);
            long issued = (Long) h.get("/api/v1/status").json().get("ids_issued");

            // The same token spelled differently is the same client.
            Http.Response r = h.get("/v1/ids?count=" + LIMIT, "Authorization",
                    "bearer  " + ADMIN);

            Map<String, Object> p = assertProblem(r, 429, LIMIT + " IDs per second");
            assertThat(p.get("type")).isEqualTo("urn:idmint:problem:rate-limited");
            assertThat(r.header("retry-after")).isEqualTo("1");
            assertThat((Long) h.get("/api/v1/status").json().get("ids_issued"))
                    .isEqualTo(issued);
            // Another client (token) has its own allowance.
            assertThat(h.get("/v1/ids?count=" + LIMIT, "Authorization", "Bearer " + API)
                    .status()).isEqualTo(200);
        } finally {
            limited.close();
        }
    }

    @Test
    void rateLimitBelowMaxCount_refusesToStart() {
        assertThatThrownBy(() -> TestServers.start(data.resolve("bad"), "rate-limit=10",
                "max-count=100"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("rate-limit 10 must be 0 or at least max-count (100)");
    }

    @Test
    void rateLimit_withoutAuth_countsPerAddress() {
        Server limited = TestServers.start(data.resolve("address"), "rate-limit=" + LIMIT,
                "max-count=" + LIMIT);
        try {
            Http h = new Http(limited.httpPort());
            assertThat(h.get("/v1/ids?count=" + LIMIT).status()).isEqualTo(200);

            assertProblem(h.get("/v1/ids?count=" + LIMIT, "Authorization", "Bearer made-up"),
                    429, "IDs per second");
            assertProblem(h.get("/v1/ids?count=" + LIMIT), 429, "asked for " + LIMIT);
        } finally {
            limited.close();
        }
    }
}

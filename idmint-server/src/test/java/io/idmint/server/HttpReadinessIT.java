package io.idmint.server;

import static io.idmint.server.HttpApiIT.assertProblem;
import static org.assertj.core.api.Assertions.assertThat;

import io.idmint.IdGenerator;
import io.idmint.Layout;
import io.idmint.Snowflake;
import io.idmint.WorkerRegistries;
import io.idmint.server.harness.Http;
import io.idmint.server.harness.TestServers;
import io.idmint.spi.WorkerRegistry;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A server that cannot get a worker: its layout has one worker ID and another process-like
 * holder on the same data directory has it. It must answer 503 + Retry-After, issue nothing,
 * stay live, and start issuing by itself once the worker is free.
 */
class HttpReadinessIT {

    private static final String SINGLE_WORKER = "time=41,sequence=12";

    @TempDir
    Path data;

    private WorkerRegistry registry;
    private IdGenerator holder;
    private Server server;

    @AfterEach
    void close() {
        if (server != null) {
            server.close();
        }
        if (holder != null) {
            holder.close();
        }
        if (registry != null) {
            registry.close();
        }
    }

    @Test
    void noWorker_is503WithRetryAfter_thenRecoversWhenTheWorkerIsFree() throws Exception {
        registry = WorkerRegistries.open("static:", data);
        holder = Snowflake.newBuilder().layout(Layout.parse(SINGLE_WORKER)).registry(registry)
                .build();
        assertThat(holder.status().ready()).isTrue();
        server = TestServers.start(data, "layout=" + SINGLE_WORKER);
        Http http = new Http(server.httpPort());

        Http.Response ready = http.get("/health/ready");
        assertThat(ready.status()).isEqualTo(503);
        assertThat(ready.header("retry-after")).isEqualTo("1");
        Map<String, Object> body = ready.json();
        assertThat(body).containsEntry("state", "ACQUIRING").containsEntry("worker", null)
                .containsEntry("datacenter", null).containsEntry("runway_ms", 0L);
        assertThat(ready.body()).doesNotContain(":-1");
        assertThat(http.get("/api/v1/status").json()).containsEntry("datacenter", null)
                .containsEntry("worker", null);
        assertThat(server.banner()).contains("(datacenter none yet, worker none yet: ");
        assertThat((String) body.get("detail")).contains("held by other processes");

        assertThat(http.get("/health/live").status()).isEqualTo(200);
        for (String path : new String[] {"/v1/id", "/v1/ids?count=5", "/api/v1/ids?count=5"}) {
            Http.Response r = http.get(path);
            Map<String, Object> p = assertProblem(r, 503, "(NO_LEASE)");
            assertThat(p.get("type")).isEqualTo("urn:idmint:problem:not-ready");
            assertThat(Long.parseLong(r.header("retry-after"))).isPositive();
        }
        // Decoding needs no worker.
        long heldId = holder.nextId();
        assertThat(http.get("/v1/id/decode?id=" + heldId).status()).isEqualTo(200);
        assertThat(http.get("/metrics").body())
                .contains("idmint_lease_state{state=\"ACQUIRING\"} 1.0")
                .contains("idmint_ids_issued_total 0.0")
                .contains("idmint_http_requests_total{route=\"/v1/id\",status=\"503\"} 1.0");

        holder.close();
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (http.get("/health/ready").status() != 200 && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        Http.Response r = http.get("/v1/id");
        assertThat(r.status()).as(r.body()).isEqualTo(200);
        assertThat(Long.parseLong((String) r.json().get("id"))).isGreaterThan(heldId);
    }
}

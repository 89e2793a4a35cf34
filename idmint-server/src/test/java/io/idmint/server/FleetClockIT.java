package io.idmint.server;

import static io.idmint.server.HttpApiIT.assertProblem;
import static org.assertj.core.api.Assertions.assertThat;

import io.idmint.IdGenerator;
import io.idmint.Snowflake;
import io.idmint.TimeSource;
import io.idmint.WorkerRegistries;
import io.idmint.spi.WorkerRegistry;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fleet clock check as an operator sees it: a server whose clock is an hour behind the
 * workers another holder keeps is NOT READY with reason {@code CLOCK_BEHIND_FLEET} and the measured
 * skew in {@code /health/ready}, the status and the metrics, and writes no high-water mark.
 */
class FleetClockIT {

    private static final long HOUR = 3_600_000;

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

    /** The real clock, an hour on: the other holder's view of time. */
    private static final class HourAhead implements TimeSource {
        @Override
        public long currentTimeMillis() {
            return System.currentTimeMillis() + HOUR;
        }

        @Override
        public long nanoTime() {
            return System.nanoTime();
        }

        @Override
        public void awaitMillis(long unixMillis) throws InterruptedException {
            while (currentTimeMillis() < unixMillis) {
                Thread.sleep(1);
            }
        }
    }

    private long hwmOf(int worker) throws Exception {
        return registry.list("default").stream().filter(r -> r.workerId() == worker)
                .mapToLong(io.idmint.spi.WorkerRecord::hwmMillis).findFirst().orElse(0);
    }

    @Test
    void serverAnHourBehindTheFleet_isNotReady_reportingTheSkewAndReason_andRaisesNoHwm()
            throws Exception {
        registry = WorkerRegistries.open("static:", data);
        // Two workers held: through HWMs the check needs at least two other holders.
        holder = Snowflake.newBuilder().registry(registry).timeSource(new HourAhead())
                .workers(2).build();
        holder.nextId();
        holder.nextId();
        server = TestServers.start(data);
        Http http = new Http(server.httpPort());

        Http.Response ready = http.get("/health/ready");
        assertThat(ready.status()).isEqualTo(503);
        Map<String, Object> body = ready.json();
        assertThat(body).containsEntry("reason", "CLOCK_BEHIND_FLEET")
                .containsEntry("worker", null);
        assertThat((Long) body.get("fleet_skew_ms")).isBetween(-HOUR - 60_000, -HOUR + 60_000);
        assertThat((String) body.get("detail")).contains("behind the high-water marks other "
                + "nodes hold").contains("clock.max-skew 2000 ms");
        assertThat(http.get("/api/v1/status").json())
                .containsEntry("reason", "CLOCK_BEHIND_FLEET");
        assertThat(http.get("/metrics").body()).containsPattern(
                "idmint_clock_fleet_skew_seconds -3[56]\\d\\d\\.\\d+");
        assertProblem(http.get("/v1/id"), 503, "");
        assertThat(hwmOf(0)).as("only the holder's workers were ever written").isPositive();
        assertThat(hwmOf(1)).isPositive();
        for (int w = 2; w < 32; w++) {
            assertThat(hwmOf(w)).as("worker %d", w).isZero();
        }
    }
}

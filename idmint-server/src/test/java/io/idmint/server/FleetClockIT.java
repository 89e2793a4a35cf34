package io.idmint.server;

import static io.idmint.server.HttpApiIT.assertProblem;
import static io.idmint.server.RegistryFaultIT.toArray;
import static org.assertj.core.api.Assertions.assertThat;

import io.idmint.IdGenerator;
import io.idmint.Layout;
import io.idmint.Snowflake;
import io.idmint.TimeSource;
import io.idmint.WorkerRegistries;
import io.idmint.server.chaos.ChaosNode;
import io.idmint.server.harness.Http;
import io.idmint.server.harness.IdmintProcesses;
import io.idmint.server.harness.IdmintProcesses.Node;
import io.idmint.server.harness.TestServers;
import io.idmint.spi.WorkerRegistry;
import io.idmint.testkit.IdOracle;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fleet clock check as an operator sees it: a server whose clock is an hour behind the
 * workers another holder keeps is NOT READY with reason {@code CLOCK_BEHIND_FLEET} and the measured
 * skew in {@code /health/ready}, the status and the metrics, and writes no high-water mark; set
 * right, it is ready within seconds.
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

    /**
     * With real processes on one {@code static:} data directory (no store clock, as on etcd): a
     * server started an hour behind (libfaketime) takes no worker; its clock set right, the hour's
     * forward step brings it into agreement with the other holders, whose HWMs confirm it, so it
     * is ready within seconds (it once held the step back for the minute an unconfirmed step
     * waits, 76 s unavailable in all) and mints at the real time, not ahead of it.
     */
    @Test
    void serverAnHourBehind_setRight_isReadyWithinSeconds_mintingAtTheRealTime(
            @TempDir Path tmp) throws Exception {
        IdmintProcesses procs = new IdmintProcesses(tmp);
        try {
            Path shared = procs.dataDir("fleet");
            List<Node> holders = List.of(procs.serve("b", shared, Map.of()),
                    procs.serve("c", shared, Map.of()));
            for (Node n : holders) {
                n.awaitReady(Duration.ofSeconds(30));
            }
            Path clock = tmp.resolve("late.clock");
            ChaosNode.setClock(clock, "-1h");
            Node late = procs.serve("late", shared, ChaosNode.clockEnv(clock));
            late.awaitNotReady(Duration.ofSeconds(30), "behind the high-water marks other nodes");
            ChaosNode.setClock(clock, "+0");
            // Well under the minute the step waited unconfirmed; libfaketime reads the file once
            // a second, and a node without a worker claims again every second or so.
            long took = late.awaitReady(Duration.ofSeconds(15));
            long before = System.currentTimeMillis();
            List<Long> ids = late.mint(1000);
            long after = System.currentTimeMillis();
            for (long id : List.of(ids.get(0), ids.get(ids.size() - 1))) {
                assertThat(Layout.SNOWFLAKE.decode(id).timestampMillis())
                        .as(procs.describe("an ID of the node set right, dated at the real time"))
                        .isBetween(before - 2_000, after + 1_000);
            }
            List<long[]> all = new ArrayList<>(List.of(toArray(ids)));
            for (Node n : holders) {
                all.add(toArray(n.mint(1000)));
            }
            IdOracle.assertUnique(all.toArray(new long[0][]));
            System.out.printf("[fleet clock] a server set right after an hour behind: ready "
                    + "%d ms after its clock file changed%n", took);
        } finally {
            procs.close();
        }
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

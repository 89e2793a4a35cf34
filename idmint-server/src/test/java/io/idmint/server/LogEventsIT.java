package io.idmint.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.idmint.server.harness.Http;
import io.idmint.server.harness.IdmintProcesses;
import io.idmint.server.harness.IdmintProcesses.Node;
import io.idmint.testkit.EtcdCluster;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The JSON log of a real {@code serve} process (docs/observability.md, "Log events"): every line
 * one JSON object with ts, level, logger and msg; a lease loss (etcd stopped past the store
 * timeout), its regain (etcd back), a wall clock stepped back at run time (libfaketime reading
 * its offset from a file) and the refusals in between each make exactly one line with the
 * worker, the runway and the reason, however many requests saw them.
 */
class LogEventsIT {

    @TempDir
    Path tmp;

    private IdmintProcesses procs;
    private EtcdCluster etcd;

    @AfterEach
    void stop() throws InterruptedException {
        if (procs != null) {
            procs.close();
        }
        if (etcd != null) {
            etcd.close();
        }
    }

    @Test
    void serve_jsonLog_leaseLossRegainAndClockFault_oneLineEach() throws Exception {
        etcd = EtcdCluster.single();
        procs = new IdmintProcesses(tmp);
        Path offset = tmp.resolve("faketime-offset");
        Files.writeString(offset, "+0\n");
        Map<String, String> env = new HashMap<>(IdmintProcesses.faketime("+0"));
        env.remove("FAKETIME");
        env.put("FAKETIME_TIMESTAMP_FILE", offset.toString());
        env.put("FAKETIME_CACHE_DURATION", "1");
        List<String> args = new ArrayList<>(List.of("--registry", "etcd://" + etcd.endpoints()
                + "/idmint-it?timeout=1s", "--namespace", "logs", "--log-format", "json"));
        args.addAll(RegistryFaultIT.SHORT);
        Node a = procs.serve("a", env, args.toArray(String[]::new));
        a.awaitReady(Duration.ofSeconds(10));
        a.mint(10);

        etcd.stop(0);
        a.awaitNotReady(Duration.ofSeconds(15), "LOST");
        for (int i = 0; i < 20; i++) {
            assertThat(a.tryMint(1).status()).as("/v1/id with the lease lost").isEqualTo(503);
        }
        etcd.restartAll();
        a.awaitReady(Duration.ofSeconds(30));
        a.mint(10);

        Files.writeString(offset, "-5\n");
        procs.await(Duration.ofSeconds(15), "one clock fault line",
                () -> events(a, "clock", "clock fault").size() == 1, a::stderr);
        a.mint(10);
        Files.writeString(offset, "+0\n");
        procs.await(Duration.ofSeconds(15), "the clock back in step",
                () -> events(a, "clock", "clock back in step").size() == 1, a::stderr);
        Files.writeString(offset, "+90\n"); // held back: no other node to confirm it
        procs.await(Duration.ofSeconds(15), "one held-back step line",
                () -> events(a, "clock", "clock step held back").size() == 1, a::stderr);
        for (long id : a.mint(10)) {
            assertThat(io.idmint.Layout.SNOWFLAKE.decode(id).timestampMillis())
                    .as("ID minted with the wall clock 90 s ahead")
                    .isLessThanOrEqualTo(System.currentTimeMillis() + 1_000);
        }
        Files.writeString(offset, "+0\n");
        procs.await(Duration.ofSeconds(15), "the clock back in step again",
                () -> events(a, "clock", "clock back in step").size() == 2, a::stderr);
        assertThat(a.sigterm()).isZero();

        for (String line : a.stderr().split("\n")) {
            Map<String, Object> o = Http.object(line);
            assertThat(o).as("stderr line %s", line).containsKeys("ts", "level", "logger", "msg");
        }
        List<Map<String, Object>> lost = events(a, "lease", "worker lease DEGRADED -> LOST");
        assertThat(lost).as(procs.describe("LOST lines")).hasSize(1);
        assertThat(lost.get(0)).as("the worker lost").containsEntry("worker", 0L)
                .containsEntry("runway_ms", 0L).containsKey("reason");
        // One ACTIVE line before the loss and one after it. The regain goes straight from LOST
        // when the first claim after the outage gets through; when the store's connection is
        // still re-dialling, that claim fails at once ("LOST -> ACQUIRING") and a later one
        // takes the worker ("ACQUIRING -> ACTIVE").
        List<Map<String, Object>> lease = events(a, "lease", null);
        int lostAt = lease.indexOf(lost.get(0));
        assertThat(lease.subList(0, lostAt)).as(procs.describe("lease lines before the loss"))
                .extracting(l -> l.get("to")).containsExactly("ACTIVE", "DEGRADED");
        int regainAt = lostAt + 1;
        while (regainAt < lease.size() && !"ACTIVE".equals(lease.get(regainAt).get("to"))) {
            assertThat(lease.get(regainAt)).as(procs.describe("a line before the regain"))
                    .containsEntry("to", "ACQUIRING");
            regainAt++;
        }
        assertThat(regainAt).as(procs.describe("a regain line")).isLessThan(lease.size());
        List<Map<String, Object>> regained = List.of(lease.get(regainAt));
        // Worker 0's lease lives on in etcd until its TTL: the regain takes another worker.
        long worker = (Long) regained.get(0).get("worker");
        assertThat(worker).isBetween(0L, 1023L);
        assertThat((Long) regained.get(0).get("runway_ms")).isPositive();
        assertThat(regained.get(0).get("reason")).isEqualTo("holding worker " + worker
                + " of datacenter 0");
        assertThat(events(a, "lease", "worker lease ACTIVE -> RELEASED"))
                .as(procs.describe("the release at SIGTERM")).singleElement()
                .satisfies(l -> assertThat(l).containsEntry("worker", worker));
        List<Map<String, Object>> clock = events(a, "clock", "clock fault");
        assertThat(clock).as(procs.describe("clock fault lines")).hasSize(1);
        assertThat((Long) clock.get(0).get("offset_ms")).isLessThan(-4_000L);
        assertThat(clock.get(0)).containsEntry("worker", worker)
                .containsKeys("runway_ms", "reason");
        List<Map<String, Object>> refusals = events(a, "refusal", "refusing requests");
        assertThat(refusals).as(procs.describe("one refusal line for 20+ refused requests"))
                .hasSize(1);
        assertThat(refusals.get(0)).containsEntry("code", "NO_LEASE").containsKey("runway_ms");
    }

    /**
     * SIGSTOP under load: Vert.x used to warn "Thread blocked" after SIGCONT for a task the stop
     * froze mid-way. Now each stop is one pause line, and no thread is reported blocked.
     */
    @Test
    void serve_stoppedUnderLoad_logsEachPause_andNoBlockedThread() throws Exception {
        procs = new IdmintProcesses(tmp);
        // Two IDs a millisecond: a request for 1000 takes its event loop 500 ms, waiting for the
        // ticks, so with eight clients every stop catches an event loop's task mid-way (an idle
        // event loop is never reported blocked).
        Node a = procs.serve("a", Map.of(), "--log-format", "json", "--layout",
                "time=52,worker=10,sequence=1");
        a.awaitReady(Duration.ofSeconds(10));
        AtomicBoolean done = new AtomicBoolean();
        AtomicLong answered = new AtomicLong();
        List<Thread> load = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            Thread t = new Thread(() -> {
                while (!done.get()) {
                    try {
                        if (a.tryMint(1000).status() == 200) {
                            answered.incrementAndGet();
                        }
                    } catch (RuntimeException e) {
                        // a request that timed out across a stop
                    }
                }
            });
            t.start();
            load.add(t);
        }
        try {
            for (int i = 0; i < 3; i++) {
                Thread.sleep(500);
                a.signal("STOP");
                Thread.sleep(2_500);
                a.signal("CONT");
            }
            Thread.sleep(1_500); // Vert.x's checker looks every second
        } finally {
            done.set(true);
            for (Thread t : load) {
                t.join();
            }
        }
        assertThat(answered.get()).isPositive();
        assertThat(a.stderr()).as(procs.describe("no blocked thread")).doesNotContain(
                "has been blocked");
        assertThat(events(a, "pause", null)).as(procs.describe("one line per stop"))
                .filteredOn(p -> (Long) p.get("paused_ms") >= 2_000).hasSize(3)
                .allSatisfy(p -> assertThat((Long) p.get("paused_ms")).isLessThan(10_000L));
        assertThat(a.sigterm()).isZero();
    }

    /** The JSON lines of {@code event} with message {@code msg} (any message when null). */
    private static List<Map<String, Object>> events(Node node, String event, String msg) {
        List<Map<String, Object>> out = new ArrayList<>();
        for (String line : node.stderr().split("\n")) {
            if (line.startsWith("{")) {
                Map<String, Object> o = Http.object(line);
                if (event.equals(o.get("event")) && (msg == null || msg.equals(o.get("msg")))) {
                    out.add(o);
                }
            }
        }
        return out;
    }
}

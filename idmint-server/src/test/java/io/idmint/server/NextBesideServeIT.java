package io.idmint.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.idmint.Layout;
import io.idmint.server.harness.Http;
import io.idmint.server.harness.IdmintProcesses;
import io.idmint.server.harness.IdmintProcesses.Node;
import io.idmint.server.harness.IdmintProcesses.Run;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code idmint next} and {@code idmint registry list} run beside a real {@code idmint serve} in
 * its data directory, on the default {@code static:} registry (issue 36, item 10): {@code next}
 * takes another worker and leaves the server's alone, and {@code registry list} names the server
 * as the holder of its worker. The server's own listing of the workers (its fleet clock check,
 * at its claim and every 10 s) read each lock file through a descriptor of its own, which drops
 * the process's lock on it: {@code next} then took worker 0 from under the server (which lost it:
 * {@code worker 0 state generation is 8, expected 7}) and {@code registry list} showed it free.
 */
class NextBesideServeIT {

    /**
     * The server's {@code lease.reservation}; the {@code next} runs keep the default 10 s. The
     * fleet clock check reads each holder's HWM against that holder's own window (stored with its
     * claim): when it read them against its own, the server was judged 9 s behind the next runs
     * and lost its worker (docs/design.md, "Clock checks").
     */
    private static final String WINDOW = "1s";

    private static final Pattern GENERATION = Pattern.compile("(?m)^generation=(\\d+)$");

    @TempDir
    Path tmp;

    private IdmintProcesses procs;

    @AfterEach
    void close() throws InterruptedException {
        if (procs != null) {
            procs.close();
        }
    }

    @Test
    void nextInTheServersDataDirectory_takesAnotherWorker_theServerKeepsWorker0_listShowsIt()
            throws Exception {
        procs = new IdmintProcesses(tmp);
        // Renewals every 333 ms (a third of the reservation): a lost worker shows within a
        // second, and next's claim and release of worker 0 (when it could take it) fall between
        // two renewals, as they did with the default 3.3 s.
        Node server = procs.serve("s", Map.of(), "--lease-reservation", WINDOW);
        server.awaitReady(Duration.ofSeconds(30));
        assertThat(server.bannerWorker).as(server.banner).isZero();
        List<Long> ids = new ArrayList<>(server.mint(1000));
        Path data = procs.dataDir("s");
        String holder = "/" + server.pid();

        Map<String, Map<String, Object>> listed = list(data);
        assertThat(listed.get("0")).as(procs.describe("registry list beside the server"))
                .isNotNull();
        assertThat((String) listed.get("0").get("holder"))
                .as(procs.describe("the holder of worker 0 as registry list --json shows it"))
                .endsWith(holder);
        Run table = procs.run("table", Map.of(), "registry", "list", "--data-dir",
                data.toString());
        assertThat(table.exitCode()).as(table.err()).isZero();
        assertThat(table.out()).as("registry list's table").doesNotContain("(free)")
                .contains(holder);

        Run next = procs.run("next", Map.of(), "next", "-n", "5", "--data-dir",
                data.toString());
        assertThat(next.exitCode()).as(next.err()).isZero();
        for (long id : next.ids()) {
            assertThat(Layout.SNOWFLAKE.decode(id).workerId()).as("worker of %d from next", id)
                    .isOne();
        }

        // The server renews on worker 0: its state file's generation moves on by two renewals
        // (or the server says it lost the worker, and the assertion below shows how).
        long generation = generation(data);
        procs.await(Duration.ofSeconds(15), "two renewals of worker 0 after next ran",
                () -> generation(data) >= generation + 2
                        || server.stderr().contains("-> LOST"),
                () -> "generation " + generation(data) + ", was " + generation);
        assertThat(server.stderr()).as(procs.describe("the server's log after next ran"))
                .doesNotContain("-> LOST");
        Http.Response ready = server.ready();
        assertThat(ready.status()).as(ready.body()).isEqualTo(200);
        assertThat(ready.json()).containsEntry("state", "ACTIVE").containsEntry("worker", 0L);
        List<Long> after = server.mint(1000);
        assertThat(after).allSatisfy(id -> assertThat(Layout.SNOWFLAKE.decode(id).workerId())
                .as("worker of %d from the server", id).isZero());
        assertThat(Collections.min(after)).isGreaterThan(Collections.max(ids));

        listed = list(data);
        assertThat((String) listed.get("0").get("holder")).as("worker 0 after next ran")
                .endsWith(holder);
        assertThat(listed.get("1")).as("next's worker").containsEntry("holder", "");
    }

    /**
     * Many processes on one data directory at once, some killed with SIGKILL while they hold a
     * worker: six {@code next} runs that block on a full stdout pipe (holding their workers),
     * three of them killed, listings between, three more runs after. No ID twice across every
     * process (a killed run's IDs counted up to its last whole line), no two holders of a worker
     * in one millisecond, and the server keeps worker 0 throughout.
     */
    @Test
    void manyNextRunsBesideServe_someKilled_noDuplicate_andTheServerKeepsItsWorker()
            throws Exception {
        procs = new IdmintProcesses(tmp);
        Node server = procs.serve("s", Map.of(), "--lease-reservation", WINDOW);
        server.awaitReady(Duration.ofSeconds(30));
        Path data = procs.dataDir("s");
        Map<String, long[]> holders = new java.util.LinkedHashMap<>();
        List<Long> serverIds = new ArrayList<>(server.mint(2000));

        List<Process> blocked = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            blocked.add(procs.startPiped("blocked" + i, Map.of(), "next", "-n", "300000",
                    "--data-dir", data.toString()));
        }
        // Nobody reads their stdout yet: each fills its pipe and blocks holding its worker.
        procs.await(Duration.ofSeconds(60), "seven workers held (the server and six next runs)",
                () -> held(data) == 7, () -> held(data) + " held");
        for (int i = 0; i < 3; i++) {
            Process p = blocked.get(i);
            p.toHandle().destroyForcibly();
            assertThat(p.waitFor(15, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
            holders.put("killed" + i, wholeLines(IdmintProcesses.drain(p.getInputStream())));
        }
        assertThat(held(data)).as("held after three SIGKILLs: the OS dropped their locks")
                .isEqualTo(4);
        serverIds.addAll(server.mint(2000));
        for (int i = 0; i < 3; i++) {
            Run more = procs.run("more" + i, Map.of(), "next", "-n", "20000", "--data-dir",
                    data.toString());
            assertThat(more.exitCode()).as(more.err()).isZero();
            holders.put("more" + i, toArray(more.ids()));
        }
        for (int i = 3; i < 6; i++) {
            Process p = blocked.get(i);
            long[] ids = wholeLines(IdmintProcesses.drain(p.getInputStream()));
            assertThat(p.waitFor(30, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
            assertThat(p.exitValue()).as(procs.stderrOf("blocked" + i)).isZero();
            assertThat(ids).as("blocked%d's IDs once read", i).hasSize(300_000);
            holders.put("blocked" + i, ids);
        }
        serverIds.addAll(server.mint(2000));
        holders.put("server", toArray(serverIds));

        io.idmint.testkit.IdOracle.assertDisjointHolders(Layout.SNOWFLAKE, holders);
        assertThat(serverIds).allSatisfy(id -> assertThat(Layout.SNOWFLAKE.decode(id)
                .workerId()).as("worker of %d from the server", id).isZero());
        assertThat(server.stderr()).as(procs.describe("the server's log")).doesNotContain(
                "-> LOST");
        assertThat((String) list(data).get("0").get("holder")).endsWith("/" + server.pid());
    }

    /** How many workers {@code registry list} shows held. */
    private int held(Path data) {
        try {
            return (int) list(data).values().stream()
                    .filter(row -> !"".equals(row.get("holder"))).count();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    /** The IDs of a stdout cut off anywhere: its whole lines only. */
    private static long[] wholeLines(String out) {
        int end = out.lastIndexOf('\n');
        return end < 0 ? new long[0] : out.substring(0, end + 1).lines()
                .filter(l -> !l.isEmpty()).mapToLong(Long::parseLong).toArray();
    }

    private static long[] toArray(List<Long> ids) {
        return ids.stream().mapToLong(Long::longValue).toArray();
    }

    /** {@code registry list --json} of {@code data}, by worker ID. */
    private Map<String, Map<String, Object>> list(Path data) throws Exception {
        Run list = procs.run("list", Map.of(), "registry", "list", "--data-dir",
                data.toString(), "--json");
        assertThat(list.exitCode()).as(list.err()).isZero();
        Map<String, Map<String, Object>> byWorker = new java.util.HashMap<>();
        for (String line : list.out().split("\n")) {
            if (!line.isBlank()) {
                Map<String, Object> row = Http.object(line);
                byWorker.put(String.valueOf(row.get("worker_id")), row);
            }
        }
        return byWorker;
    }

    /** The generation in worker 0's state file: it grows by one with every renewal. */
    private static long generation(Path data) {
        try {
            String text = Files.readString(data.resolve("workers/default/worker-0-0.state"));
            Matcher m = GENERATION.matcher(text);
            return m.find() ? Long.parseLong(m.group(1)) : -1;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}

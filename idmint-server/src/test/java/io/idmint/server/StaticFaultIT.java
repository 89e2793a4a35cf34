package io.idmint.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.idmint.IdParts;
import io.idmint.Layout;
import io.idmint.server.harness.IdmintProcesses;
import io.idmint.testkit.IdOracle;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Real faults on real processes with the {@code static:} registry: {@code java -jar idmint.jar
 * next} killed with SIGKILL mid-run, and restarted with its wall clock an hour behind through
 * libfaketime (docs/design.md, "Time" and "Worker leases and the high-water mark"). What is
 * checked is the contract, on the IDs the processes printed: no ID twice, and two holders of one
 * worker never minting from overlapping time ranges.
 */
class StaticFaultIT {

    private static final Layout LAYOUT = Layout.SNOWFLAKE;
    private static final long HOUR_MILLIS = 3_600_000L;
    /** The default clock.max-wait: a worker whose HWM is further ahead is not taken. */
    private static final long MAX_WAIT_MILLIS = 10;
    private static final List<Path> FAKETIME_LIBS = List.of(
            Path.of("/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1"),
            Path.of("/usr/lib/aarch64-linux-gnu/faketime/libfaketime.so.1"),
            Path.of("/usr/lib/faketime/libfaketime.so.1"));
    private static final Pattern BEHIND = Pattern.compile(
            "clock is (\\d+) ms behind the high-water mark of worker 0");

    private static Path jar;

    @TempDir
    Path tmp;

    private final List<Process> started = new ArrayList<>();

    @BeforeAll
    static void findJar() {
        jar = IdmintProcesses.shadedJar();
    }

    @AfterEach
    void killLeftovers() throws InterruptedException {
        for (Process p : started) {
            if (p.isAlive()) {
                p.destroyForcibly();
                p.waitFor(10, TimeUnit.SECONDS);
            }
        }
    }

    @Test
    void next_killedWithSigkill_nextRunMintsNoDuplicate() throws Exception {
        Path data = tmp.resolve("data");
        Path stateFile = data.resolve("workers/default/worker-0-0.state");
        Process victim = builder("victim", Map.of(), "next", "-n", "50000000",
                "--data-dir", data.toString(), "--worker", "0").start();
        started.add(victim);
        LineReader out = new LineReader(victim.getInputStream());
        // The writer blocks on a full pipe, so it is mid-run while this reads.
        List<Long> victimIds = new ArrayList<>(out.read(200_000));
        assertThat(victimIds).as("lines before the kill; stderr: %s", stderr("victim"))
                .hasSize(200_000);
        assertThat(victim.isAlive()).as("victim still minting when killed").isTrue();

        // SIGKILL: no shutdown hook, no release. Through the handle, because
        // Process.destroyForcibly() also closes this end of the pipe, and the IDs still in it
        // were minted too.
        assertThat(victim.toHandle().destroyForcibly()).as("SIGKILL sent").isTrue();
        assertThat(victim.waitFor(30, TimeUnit.SECONDS)).as("victim died").isTrue();
        assertThat(victim.exitValue()).as("exit status of a SIGKILLed JVM").isEqualTo(128 + 9);
        // A partly written last line is dropped.
        victimIds.addAll(out.read(Integer.MAX_VALUE));
        long victimLastMillis = maxMillis(victimIds);
        long hwm = hwm(stateFile);
        assertThat(hwm).as("worker 0's stored HWM after the kill is a reservation covering "
                + "every ID the victim printed (last at %d); state file:%n%s", victimLastMillis,
                Files.readString(stateFile)).isGreaterThanOrEqualTo(victimLastMillis);

        long before = System.currentTimeMillis();
        Run after = run("after", Map.of(), "next", "-n", "200000", "--data-dir", data.toString(),
                "--worker", "0");
        long afterEnd = System.currentTimeMillis();

        assertThat(after.exitCode()).as("exit status after the kill; stderr: %s", after.err())
                .isZero();
        assertThat(after.ids()).hasSize(200_000);
        IdOracle.assertStrictlyIncreasing(toArray(after.ids()));
        for (long id : after.ids()) {
            IdParts p = LAYOUT.decode(id);
            if (p.workerId() == 0) {
                assertThat(p.timestampMillis()).as("ID %d on worker 0 after the kill must be "
                        + "above the HWM %d the victim left", id, hwm).isGreaterThan(hwm);
            }
        }
        int worker = LAYOUT.decode(after.ids().get(0)).workerId();
        if (hwm - afterEnd > MAX_WAIT_MILLIS) {
            // HwmLease.acquire: a worker ahead by a reservation window is a crash's
            // leftover; the coldest free worker is taken instead of waiting it out.
            assertThat(worker).as("worker 0's HWM was %d ms ahead of the clock for the whole "
                    + "run, so the next run takes a cold worker", hwm - afterEnd).isNotZero();
        } else if (hwm < before) {
            assertThat(worker).as("worker 0's HWM had passed: it is taken again").isZero();
        }
        Map<String, long[]> holders = new LinkedHashMap<>();
        holders.put("victim (SIGKILLed)", toArray(victimIds));
        holders.put("run after the kill", toArray(after.ids()));
        IdOracle.assertDisjointHolders(LAYOUT, holders);
    }

    @Test
    void next_restartedWithClockAnHourBack_continueMintsAboveHwm_failRefuses() throws Exception {
        Map<String, String> hourBack = faketime("-1h");
        String data = tmp.resolve("data").toString();
        Path stateFile = tmp.resolve("data/workers/default/worker-0-0.state");

        Run first = run("first", Map.of(), "next", "-n", "100000", "--data-dir", data,
                "--worker", "0");
        assertThat(first.exitCode()).as("first run; stderr: %s", first.err()).isZero();
        assertThat(first.ids()).hasSize(100_000);
        assertThat(first.ids()).allSatisfy(id -> assertThat(LAYOUT.decode(id).workerId())
                .as("first run's worker").isZero());
        long firstMax = first.ids().stream().mapToLong(Long::longValue).max().orElseThrow();
        long hwm = hwm(stateFile);
        assertThat(hwm).as("HWM released by the first run covers its last ID")
                .isGreaterThanOrEqualTo(LAYOUT.decode(firstMax).timestampMillis());

        long contStart = System.currentTimeMillis();
        assertThat(hwm).as("the first run released worker 0 with its last ID's time, now past")
                .isLessThan(contStart);
        Run cont = run("continue", hourBack, "next", "-n", "1000", "--data-dir", data,
                "--worker", "0", "--clock-policy", "continue");
        assertThat(cont.exitCode()).as("clock an hour back, clock.policy=continue; stderr: %s",
                cont.err()).isZero();
        assertThat(cont.ids()).hasSize(1000);
        IdOracle.assertStrictlyIncreasing(toArray(cont.ids()));
        for (long id : cont.ids()) {
            IdParts p = LAYOUT.decode(id);
            assertThat(p.workerId()).as("clock.policy=continue keeps the preferred worker 0 "
                    + "(ID %d)", id).isZero();
            assertThat(id).as("ID %d (ms %d) minted with the clock an hour back must be above "
                    + "the first run's largest, %d (ms %d)", id, p.timestampMillis(), firstMax,
                    LAYOUT.decode(firstMax).timestampMillis()).isGreaterThan(firstMax);
            // On the logical clock, just above the stored HWM. On a sane clock it would mint at
            // its own start time, after the HWM: so this also shows that faketime took.
            assertThat(p.timestampMillis()).as("timestamp of %d: the first tick above worker "
                    + "0's HWM", id).isEqualTo(hwm + 1);
        }

        // A short store timeout bounds how long `next` would retry a refusal while minting.
        Run fail = run("fail", hourBack, "next", "-n", "1000", "--data-dir", data,
                "--worker", "0", "--lease-store-timeout", "2s");
        // HwmLease.acquire: a worker whose HWM is further ahead than a reservation window
        // means the clock is wrong; the node waits (not ready) instead of switching worker, and
        // `next` refuses at once rather than guess.
        assertThat(fail.exitCode()).as("clock an hour back, clock.policy=fail; stdout: %s, "
                + "stderr: %s", fail.out().length() + " bytes", fail.err()).isEqualTo(1);
        assertThat(fail.ids()).as("IDs minted under clock.policy=fail with the clock behind")
                .isEmpty();
        Matcher m = BEHIND.matcher(fail.err());
        assertThat(m.find()).as("stderr names the clock and worker 0: %s", fail.err()).isTrue();
        assertThat(Long.parseLong(m.group(1))).as("how far behind the HWM the faked clock is "
                + "(about an hour less the seconds since the first run): %s", fail.err())
                .isBetween(HOUR_MILLIS - 60_000, HOUR_MILLIS + 1_000);
        assertThat(hwm(stateFile)).as("worker 0's HWM after the refused run")
                .isGreaterThanOrEqualTo(hwm + 1);

        Map<String, long[]> holders = new LinkedHashMap<>();
        holders.put("first run", toArray(first.ids()));
        holders.put("clock -1h, continue", toArray(cont.ids()));
        IdOracle.assertDisjointHolders(LAYOUT, holders);
    }

    /**
     * The environment that runs a JVM an offset away from the real wall clock. The monotonic
     * clock stays real (FAKETIME_DONT_FAKE_MONOTONIC=1; without it a JVM may hang), and
     * FAKETIME_FORCE_MONOTONIC_FIX=0 turns off a glibc workaround of libfaketime 0.9.10 that
     * makes pthread_cond_timedwait time out early (its README says so): the JVM's timed waits
     * then spin, and a 1000-ID run takes 5 to 10 s instead of under 1.
     */
    private static Map<String, String> faketime(String offset) {
        Path lib = FAKETIME_LIBS.stream().filter(Files::exists).findFirst().orElse(null);
        assertThat(lib).as("libfaketime.so.1 in %s: install the Debian package faketime "
                + "(scripts/test does)", FAKETIME_LIBS).isNotNull();
        return Map.of("LD_PRELOAD", lib.toString(), "FAKETIME", offset,
                "FAKETIME_DONT_FAKE_MONOTONIC", "1", "FAKETIME_FORCE_MONOTONIC_FIX", "0");
    }

    private record Run(int exitCode, String out, String err) {
        /** The complete lines of stdout as IDs. */
        List<Long> ids() {
            List<Long> ids = new ArrayList<>();
            for (String line : out.split("\n")) {
                if (!line.isEmpty()) {
                    ids.add(Long.parseLong(line));
                }
            }
            return ids;
        }
    }

    /** Runs one command to the end, stdout and stderr to files. */
    private Run run(String name, Map<String, String> env, String... args) throws Exception {
        Path out = tmp.resolve(name + ".out");
        Process p = builder(name, env, args).redirectOutput(out.toFile()).start();
        started.add(p);
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("idmint " + String.join(" ", args) + " did not exit within "
                    + "30 s; stderr: " + stderr(name));
        }
        return new Run(p.exitValue(), Files.readString(out), stderr(name));
    }

    private ProcessBuilder builder(String name, Map<String, String> env, String... args) {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-jar",
                jar.toString()));
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command).directory(tmp.toFile())
                .redirectError(tmp.resolve(name + ".err").toFile());
        pb.environment().keySet().removeIf(k -> k.startsWith("IDMINT_") || k.startsWith("FAKETIME")
                || k.equals("LD_PRELOAD"));
        pb.environment().putAll(env);
        return pb;
    }

    private String stderr(String name) throws IOException {
        Path err = tmp.resolve(name + ".err");
        return Files.exists(err) ? Files.readString(err) : "(none)";
    }

    /** The HWM stored in a static registry state file. */
    private static long hwm(Path stateFile) throws IOException {
        for (String line : Files.readAllLines(stateFile)) {
            if (line.startsWith("hwm=")) {
                return Long.parseLong(line.substring(4));
            }
        }
        throw new AssertionError("no hwm= line in " + stateFile + ":\n"
                + Files.readString(stateFile));
    }

    private static long maxMillis(List<Long> ids) {
        return ids.stream().mapToLong(id -> LAYOUT.decode(id).timestampMillis()).max()
                .orElseThrow();
    }

    private static long[] toArray(List<Long> ids) {
        return ids.stream().mapToLong(Long::longValue).toArray();
    }

    /**
     * Reads decimal lines from a process's stdout. Only lines ended by a newline count: a process
     * killed mid-write leaves a partial last line, which is dropped.
     */
    private static final class LineReader {
        private final InputStream in;
        private final byte[] buf = new byte[64 * 1024];
        private final ByteArrayOutputStream partial = new ByteArrayOutputStream();
        private boolean eof;

        LineReader(InputStream in) {
            this.in = in;
        }

        /** Up to {@code max} complete lines, fewer at end of stream. */
        List<Long> read(int max) throws IOException {
            List<Long> ids = new ArrayList<>();
            while (ids.size() < max && !eof) {
                int n = in.read(buf, 0, Math.min(buf.length, max - ids.size()));
                if (n < 0) {
                    eof = true;
                    break;
                }
                for (int i = 0; i < n; i++) {
                    if (buf[i] == '\n') {
                        ids.add(Long.parseLong(partial.toString(StandardCharsets.US_ASCII)));
                        partial.reset();
                    } else {
                        partial.write(buf[i]);
                    }
                }
            }
            return ids;
        }
    }
}

package io.idmint.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.idmint.server.chaos.ChaosNode;
import io.idmint.server.harness.ClockProbe;
import io.idmint.testkit.TestTime;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The chaos harness's clock faults work on a running JVM: with the environment
 * {@link ChaosNode#clockEnv} gives, rewriting the timestamp file steps the JVM's wall clock
 * forwards and back (within libfaketime's one-second cache), while its monotonic clock
 * ({@code System.nanoTime}, which lease timing uses) stays real.
 */
class FaketimeClockIT {

    @TempDir
    Path tmp;

    @Test
    void timestampFile_stepsTheWallClockOfARunningJvm_monotonicStaysReal() throws Exception {
        Path file = tmp.resolve("probe.clock");
        ChaosNode.setClock(file, "+0");
        Path classes = Path.of(ClockProbe.class.getProtectionDomain().getCodeSource()
                .getLocation().toURI());
        ProcessBuilder pb = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin",
                "java").toString(), "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-cp",
                classes.toString(), ClockProbe.class.getName())
                .redirectError(tmp.resolve("probe.err").toFile());
        pb.environment().putAll(ChaosNode.clockEnv(file));
        Process p = pb.start();
        try (Writer out = p.outputWriter(StandardCharsets.UTF_8);
                BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(),
                        StandardCharsets.UTF_8))) {
            long[] first = sample(out, in);
            long realNano0 = System.nanoTime();
            assertThat(first[0] - first[2]).as("offset with +0").isBetween(-1_000L, 1_000L);
            for (var step : List.of(List.of("+90s", 90_000L), List.of("-1h", -3_600_000L),
                    List.of("-5s", -5_000L), List.of("+0", 0L))) {
                ChaosNode.setClock(file, (String) step.get(0));
                long want = (Long) step.get(1);
                long deadline = TestTime.deadline(Duration.ofSeconds(10));
                long[] s = sample(out, in);
                while (Math.abs(s[0] - s[2] - want) > 1_000 && System.nanoTime() < deadline) {
                    Thread.sleep(50);
                    s = sample(out, in);
                }
                assertThat(s[0] - s[2]).as("the probe's wall clock after writing %s",
                        step.get(0)).isBetween(want - 1_000, want + 1_000);
                long probeElapsed = (s[1] - first[1]) / 1_000_000;
                long realElapsed = (s[3] - realNano0) / 1_000_000;
                assertThat(probeElapsed).as("the probe's monotonic clock follows the real one, "
                        + "not the step to %s", step.get(0))
                        .isBetween(realElapsed - 2_000, realElapsed + 2_000);
            }
        } finally {
            p.destroyForcibly();
            p.waitFor(10, TimeUnit.SECONDS);
        }
    }

    /** The probe's wall and monotonic clocks, then the harness's real wall and monotonic. */
    private static long[] sample(Writer out, BufferedReader in) throws IOException {
        out.write("\n");
        out.flush();
        String line = in.readLine();
        assertThat(line).as("a line from the probe").isNotNull();
        String[] parts = line.split(" ");
        return new long[] {Long.parseLong(parts[0]), Long.parseLong(parts[1]),
            System.currentTimeMillis(), System.nanoTime()};
    }
}

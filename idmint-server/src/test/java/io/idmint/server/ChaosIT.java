package io.idmint.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.idmint.server.chaos.Chaos;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The chaos harness's CI profile (docs/testing.md, "Chaos harness"): 3 real nodes on a 3-member
 * etcd for 3 minutes under a seeded nemesis (the seed is printed; {@code -Dchaos.seed=S}
 * replays its faults), failing on any oracle violation: a duplicate ID, two holders in one
 * millisecond of one worker, an ID more than the ahead bound in the future, or readiness
 * disagreeing with issuing for longer than the grace. Recovery times are reported, not
 * asserted: a loaded machine may stretch them. {@code scripts/chaos} runs this with other
 * settings ({@code -Dchaos.store}, {@code chaos.minutes}, {@code chaos.nodes}), with JUnit's
 * timeouts off ({@code -Djunit.jupiter.execution.timeout.mode=disabled}): the 6 minutes here
 * bound the CI profile only.
 */
public class ChaosIT {

    @TempDir
    public Path tmp;

    @Test
    @Timeout(value = 6, unit = TimeUnit.MINUTES)
    public void nemesis_oracleFindsNoViolation() throws Exception {
        Chaos.Settings settings = Chaos.Settings.fromSystemProperties(3);
        Chaos chaos = new Chaos(settings, tmp, System.out::println);
        Path out = Files.createDirectories(Path.of("target", "chaos"));
        try {
            chaos.run();
        } finally {
            // The nodes' logs (stderr: state changes, events), kept beside the report.
            Path logs = Files.createDirectories(out.resolve("logs-" + settings.store() + "-"
                    + settings.seed()));
            try (var files = Files.list(tmp)) {
                for (Path f : (Iterable<Path>) files::iterator) {
                    if (f.getFileName().toString().endsWith(".err")) {
                        Files.copy(f, logs.resolve(f.getFileName()),
                                java.nio.file.StandardCopyOption.REPLACE_EXISTING);
                    }
                }
            }
        }
        List<String> violations = chaos.oracle().check();
        String report = chaos.report(violations);
        System.out.print(report);
        Files.writeString(out.resolve("report-" + settings.store() + "-" + settings.seed()
                + ".txt"), report);
        assertThat(chaos.oracle().idCount()).as(report).isPositive();
        assertThat(violations).as(report).isEmpty();
    }
}

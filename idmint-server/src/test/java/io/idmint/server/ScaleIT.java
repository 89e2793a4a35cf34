package io.idmint.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.idmint.server.chaos.Scale;
import io.idmint.testkit.Alone;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The scale run's CI profile (docs/testing.md, "Scale run"): 4 nodes on a 3-member etcd, 10 s
 * idle, 15 s of churn (a node killed and restarted every second), then 4 nodes holding all 64
 * worker IDs of a 6-bit worker field and a fifth refused until one stops. Fails on a node slower
 * than 5 s to be ready, a duplicate or two holders in one millisecond of a worker, an empty pool
 * in the churn, or a fifth node that is not refused, or not served once a worker is free.
 * {@code scripts/scale} runs it with other settings ({@code -Dscale.nodes=32 …}), timeouts off.
 *
 * <p>{@link Alone}: the 5 s bound is a measurement. Beside the other classes a first node took
 * 5.7 s (CI20) and every node 4.1–5.6 s next to the chaos run (CI19), 1.5–1.8 s otherwise.
 */
@Alone
public class ScaleIT {

    @TempDir
    public Path tmp;

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    public void nodesStartChurnAndFillTheWorkerSpace_withoutSharingOrRunningOut() throws Exception {
        Scale.Settings settings = Scale.Settings.fromSystemProperties(
                new Scale.Settings(4, 10, 15, 4, "time=41,worker=6,sequence=16"));
        Scale scale = new Scale(settings, tmp, System.out::println);

        scale.run();

        String report = scale.report();
        Scale.write(Path.of("target", "scale", "report-" + settings.nodes() + ".txt"), report);
        assertThat(scale.failures()).as(report).isEmpty();
    }
}

package io.idmint.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.idmint.Layout;
import io.idmint.server.harness.Cli;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The keys {@code sequence.start} and {@code sequence.random-span} on the command line. */
class SequenceStartCliTest {

    @TempDir
    Path data;

    @Test
    void layout_randomStart_showsTheLeastIdsPerTick() {
        Cli.Result r = Cli.run("layout", "--sequence-start", "random");

        assertThat(r.exitCode()).as(r.err()).isZero();
        assertThat(r.out()).contains("IDs per tick        4096 (at least 4081 with "
                + "sequence.start=random, span 16)\n");
        Cli.Result json = Cli.run("layout", "--json", "--sequence-start", "random",
                "--sequence-random-span", "1024");
        assertThat(json.out()).contains("\"sequence_random_span\":1024,"
                + "\"min_ids_per_tick\":3073,\"ids_per_tick\":4096");
    }

    @Test
    void layout_zeroStart_showsThePlainCapacity() {
        assertThat(Cli.run("layout").out()).contains("IDs per tick        4096\n");
    }

    @Test
    void spanAboveTheLayoutsTick_exits2NamingIt() {
        Cli.Result r = Cli.run("layout", "js-safe", "--sequence-start", "random",
                "--sequence-random-span", "256");

        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.err()).contains("sequence.random-span 256").contains("128 IDs per tick");
        Cli.Result next = Cli.run("next", "--layout", "js-safe", "--sequence-start", "random",
                "--sequence-random-span", "256", "--data-dir", data.toString());
        assertThat(next.exitCode()).isEqualTo(2);
        assertThat(next.err()).contains("sequence.random-span 256");
    }

    @Test
    void badValues_exit2NamingKeyAndValue() {
        Cli.Result start = Cli.run("next", "--sequence-start", "sometimes", "--data-dir",
                data.toString());
        assertThat(start.exitCode()).isEqualTo(2);
        assertThat(start.err()).contains("sequence.start 'sometimes'").contains("zero or random");
        Cli.Result span = Cli.run("next", "--sequence-random-span", "1", "--data-dir",
                data.toString());
        assertThat(span.exitCode()).isEqualTo(2);
        assertThat(span.err()).contains("sequence.random-span '1'");
    }

    @Test
    void next_randomStart_mintsIncreasingIdsStartingBelowTheSpan() {
        Cli.Result r = Cli.run("next", "-n", "2000", "--sequence-start", "random",
                "--sequence-random-span", "64", "--data-dir", data.toString());

        assertThat(r.exitCode()).as(r.err()).isZero();
        List<Long> ids = r.lines().stream().map(Long::parseLong).toList();
        assertThat(ids).hasSize(2000).isSorted().doesNotHaveDuplicates();
        assertThat(Layout.SNOWFLAKE.decode(ids.get(0)).sequence()).isLessThan(64);
    }
}

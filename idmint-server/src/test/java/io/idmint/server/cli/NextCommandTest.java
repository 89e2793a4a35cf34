package io.idmint.server.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.idmint.IdCodec;
import io.idmint.Layout;
import io.idmint.server.config.Config;
import io.idmint.server.harness.Cli;
import io.idmint.server.mint.LeasedGenerator;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

class NextCommandTest {

    @TempDir
    Path data;

    @ParameterizedTest
    @EnumSource(IdCodec.class)
    void next_eachFormat_printsUniqueIncreasingIds(IdCodec codec) {
        Cli.Result r = Cli.run("next", "-n", "10000", "--format", codec.lowerName(),
                "--data-dir", data.toString());

        assertThat(r.exitCode()).as(r.err()).isZero();
        assertThat(r.err()).isEmpty();
        List<String> lines = r.lines();
        assertThat(lines).hasSize(10_000);
        long prev = 0;
        for (String line : lines) {
            long id = codec.parse(line);
            String prefix = codec == IdCodec.HEX ? "0x" : "";
            assertThat(prefix + codec.format(id)).isEqualTo(line);
            assertThat(id).isGreaterThan(prev);
            prev = id;
        }
    }

    @Test
    void next_leafLayout_mintsIdsThatDecodeToNowInLeafsEpoch() {
        long before = System.currentTimeMillis();
        Cli.Result r = Cli.run("next", "--layout", "leaf", "-n", "3", "--data-dir",
                data.toString());

        assertThat(r.exitCode()).as(r.err()).isZero();
        for (String line : r.lines()) {
            long at = io.idmint.Layout.LEAF.decode(Long.parseLong(line)).timestampMillis();
            assertThat(at).isBetween(before, System.currentTimeMillis());
        }
    }

    @Test
    void next_unsigned64BitLayout_exits2NamingTheRule() {
        Cli.Result r = Cli.run("next", "--layout", "discord", "--data-dir", data.toString());

        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.out()).isEmpty();
        assertThat(r.err()).contains("layout discord uses all 64 bits")
                .contains("mints at most 63 bits");
    }

    @Test
    void next_default_printsOneDecimalId() {
        Cli.Result r = Cli.run("next", "--data-dir", data.toString());

        assertThat(r.exitCode()).isZero();
        assertThat(r.lines()).hasSize(1);
        var parts = Layout.SNOWFLAKE.decode(IdCodec.DECIMAL.parse(r.lines().get(0)));
        assertThat(parts.datacenterId()).isZero();
        assertThat(parts.timestamp()).isBetween(Instant.now().minusSeconds(60), Instant.now());
    }

    @Test
    void next_twoRunsOnOneDataDir_continueAboveTheFirst() {
        Cli.Result first = Cli.run("next", "-n", "5000", "--data-dir", data.toString());
        Cli.Result second = Cli.run("next", "-n", "5000", "--data-dir", data.toString());

        List<String> a = first.lines();
        long lastOfFirst = Long.parseLong(a.get(a.size() - 1));
        assertThat(Long.parseLong(second.lines().get(0))).isGreaterThan(lastOfFirst);
    }

    @Test
    void next_runAgainAndAgain_takesWorkerZeroBack() {
        // Worker 0 by default, as serve: a fresh worker per run would use up the worker space
        // (and fill the data directory) in a script that calls next in a loop.
        for (int run = 0; run < 3; run++) {
            Cli.Result r = Cli.run("next", "--data-dir", data.toString());

            assertThat(r.exitCode()).as(r.err()).isZero();
            assertThat(Layout.SNOWFLAKE.decode(Long.parseLong(r.out().trim())).workerId())
                    .as("worker of run %d", run).isZero();
        }
    }

    @Test
    void next_preferredWorkerAndDatacenter_areInTheIds() {
        Cli.Result r = Cli.run("next", "--datacenter", "3", "--worker", "17", "--data-dir",
                data.toString());

        assertThat(r.exitCode()).as(r.err()).isZero();
        var parts = Layout.SNOWFLAKE.decode(Long.parseLong(r.out().trim()));
        assertThat(parts.datacenterId()).isEqualTo(3);
        assertThat(parts.workerId()).isEqualTo(17);
    }

    @Test
    void next_terminalAndLargeN_showsProgressOnStderr() {
        Cli.Result r = Cli.run(Map.of(), true, "next", "-n", "1000000", "--data-dir",
                data.toString());

        assertThat(r.exitCode()).isZero();
        assertThat(r.lines()).hasSize(1_000_000);
        assertThat(r.err()).startsWith("\r\u001b[K 262144/1000000 ids, ")
                .containsPattern("\r\u001b\\[K\r\u001b\\[K 524288/1000000 ids, \\d+ ids/s, ETA "
                        + "\\d+(ms|s)")
                .containsPattern("\r\u001b\\[K 1000000/1000000 ids, \\d+ ids/s, done in "
                        + "\\d+(ms|s)\n$");
    }

    @Test
    void progress_showsRateAndEta() {
        assertThat(NextCommand.progress(250_000, 1_000_000, 500_000_000L))
                .isEqualTo(" 250000/1000000 ids, 500000 ids/s, ETA 2s");
        assertThat(NextCommand.progress(1_000_000, 1_000_000, 1_250_000_000L))
                .isEqualTo(" 1000000/1000000 ids, 800000 ids/s, done in 1250ms");
    }

    @Test
    void next_notATerminal_printsNothingOnStderr() {
        Cli.Result r = Cli.run(Map.of(), false, "next", "-n", "1000000", "--data-dir",
                data.toString());

        assertThat(r.exitCode()).isZero();
        assertThat(r.err()).isEmpty();
    }

    @Test
    void next_smallNOnATerminal_showsNoProgress() {
        Cli.Result r = Cli.run(Map.of(), true, "next", "-n", "10", "--data-dir", data.toString());

        assertThat(r.err()).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {"0", "-5", "abc", "1000000001", "99999999999999999999"})
    void next_badCount_exits2NamingIt(String n) {
        Cli.Result r = Cli.run("next", "-n", n, "--data-dir", data.toString());

        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.err()).contains(n).doesNotContain("Exception");
        assertThat(r.out()).isEmpty();
    }

    @Test
    void next_clockMaxWaitOutOfRange_namesItAsUsersWriteDurations() {
        Cli.Result r = Cli.run("next", "--clock-max-wait", "1h", "--data-dir", data.toString());

        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.err()).contains("clock.max-wait '1h' (from flag --clock-max-wait) is not "
                + "valid: '1h' must be between 0ms and 10s")
                .doesNotContain("PT");
    }

    @Test
    void next_unknownFormat_exits2NamingIt() {
        Cli.Result r = Cli.run("next", "--format", "foo", "--data-dir", data.toString());

        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.err()).contains("'foo'");
        assertThat(r.out()).isEmpty();
    }

    @Test
    void next_formatCodeWithoutAKey_exits2NamingTheKeys() {
        Cli.Result r = Cli.run("next", "--format", "code", "--data-dir", data.toString());

        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.err()).contains("codes.key").contains("codes.key-file")
                .contains("codes.dev");
        assertThat(r.out()).isEmpty();
    }

    @Test
    void next_badLayout_exits2NamingIt() {
        Cli.Result r = Cli.run("next", "--layout", "snowflak", "--data-dir", data.toString());

        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.err()).contains("snowflak").contains("--layout");
        assertThat(r.out()).isEmpty();
    }

    @Test
    void next_datacenterOutsideTheLayout_exits2() {
        Cli.Result r = Cli.run("next", "--datacenter", "32", "--data-dir", data.toString());

        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.err()).contains("32");
        assertThat(r.out()).isEmpty();
    }

    @Test
    void next_otherLayoutOnTheSameDataDir_exits2NamingBoth() {
        assertThat(Cli.run("next", "--data-dir", data.toString()).exitCode()).isZero();

        Cli.Result r = Cli.run("next", "--layout", "js-safe", "--data-dir", data.toString());

        // Bad input (the layout given contradicts the stored one), not a runtime failure.
        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.err()).contains("was set up for layout 'time=41,datacenter=5")
                .contains("not 'time=41,worker=").doesNotContain("Exception");
        assertThat(r.out()).isEmpty();
    }

    @Test
    void next_everyWorkerHeld_exits1SayingSo() {
        // A layout without a worker field has one worker per datacenter: hold it here.
        String layout = "time=41,worker=0,sequence=12";
        try (LeasedGenerator held = LeasedGenerator.open(Config.load(
                Map.of(Config.LAYOUT, new Config.Setting(layout, "test"),
                        Config.DATA_DIR, new Config.Setting(data.toString(), "test")),
                Map.of(), null))) {
            assertThat(held.ids().status().ready()).isTrue();

            // next waits up to lease.store-timeout for a worker to free (15 s by default).
            Cli.Result r = Cli.run(Map.of("IDMINT_LEASE_STORE_TIMEOUT", "1s"), "next",
                    "--layout", layout, "--data-dir", data.toString());

            assertThat(r.exitCode()).isEqualTo(1);
            assertThat(r.err()).contains("held by other processes");
            assertThat(r.out()).isEmpty();
        }
    }
}

package io.idmint.server.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.idmint.Layout;
import io.idmint.server.harness.Cli;
import io.idmint.server.json.ApiJson;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MigrateCommandTest {

    @TempDir
    Path dir;

    private static long leafId(long millis, int worker) {
        return Layout.LEAF.compose(Layout.LEAF.tickOf(millis), 0, worker, 0, 5);
    }

    @Test
    void plan_leafSample_printsTheLayoutConfigAndCutOver() throws Exception {
        long now = System.currentTimeMillis();
        long high = leafId(now - 60_000, 3);
        Path file = Files.writeString(dir.resolve("ids.txt"),
                leafId(now - 3_600_000, 0) + "\n\n" + high + "\n");

        Cli.Result r = Cli.run("migrate", "plan", "--from", "leaf", "--sample-ids",
                file.toString());

        assertThat(r.exitCode()).as(r.err()).isZero();
        assertThat(r.err()).isEmpty();
        assertThat(r.out()).contains("source      leaf: time=41,worker=10,sequence=12,tick=1ms,"
                        + "epoch=2010-11-04T01:42:54.657Z")
                .contains("sample      2 IDs from ")
                .contains("highest ID  " + high + " (line 3)")
                .contains("layout      leaf (the source's own), runs out 2080-07-10T17:30:30.209Z")
                .contains("not before  " + ApiJson.iso(Layout.LEAF.millisOf(
                        Layout.LEAF.tickOf(now - 60_000) + 1)))
                .contains("\n  layout=leaf\n")
                .contains("Stop every leaf generator")
                .contains("registry=zk://LEAF-ZK-HOSTS/idmint?leaf-name=LEAF_NAME");
    }

    @Test
    void plan_discordMaxId_printsANewEpochLayout() {
        long now = System.currentTimeMillis();
        long high = Layout.DISCORD.compose(Layout.DISCORD.tickOf(now), 31, 31, 0, 4095);

        Cli.Result r = Cli.run("migrate", "plan", "--from", "discord", "--max-id",
                Long.toString(high));

        assertThat(r.exitCode()).as(r.err()).isZero();
        String line = r.lines().stream().filter(l -> l.startsWith("  layout=")).findFirst()
                .orElseThrow();
        Layout planned = Layout.parse(line.substring("  layout=".length()));
        assertThat(planned.totalBits()).isEqualTo(63);
        assertThat(planned.compose(planned.tickOf(now + 1), 0, 0, 0, 0)).isGreaterThan(high);
        assertThat(r.out()).contains("(new epoch)").contains("Check that --max-id was read")
                .doesNotContain("leaf-name");
    }

    @Test
    void plan_refused_exits2WithTheReasonAndNothingOnStdout() throws Exception {
        Path file = Files.writeString(dir.resolve("ids.txt"), "1\n2\nseven\n");

        Cli.Result malformed = Cli.run("migrate", "plan", "--from", "twitter", "--sample-ids",
                file.toString());
        Cli.Result future = Cli.run("migrate", "plan", "--from", "leaf", "--max-id",
                Long.toString(leafId(System.currentTimeMillis() + 3_600_000, 1)));
        Cli.Result exhausted = Cli.run("migrate", "plan", "--from", "leaf", "--horizon", "60",
                "--max-id", Long.toString(leafId(System.currentTimeMillis(), 1)));

        assertThat(malformed.exitCode()).isEqualTo(2);
        assertThat(malformed.out()).isEmpty();
        assertThat(malformed.err()).isEqualTo("idmint: line 3: 'seven' is not a decimal ID (1 to "
                + "20 digits, at most 18446744073709551615)\n");
        assertThat(future.exitCode()).isEqualTo(2);
        assertThat(future.out()).isEmpty();
        assertThat(future.err()).contains("an ID from the future");
        assertThat(exhausted.exitCode()).isEqualTo(2);
        assertThat(exhausted.err()).contains("before the horizon");
    }

    @Test
    void plan_badUsage_exits2NamingTheOption() {
        Cli.Result neither = Cli.run("migrate", "plan", "--from", "leaf");
        Cli.Result unknown = Cli.run("migrate", "plan", "--from", "flickr", "--max-id", "1");
        Cli.Result missing = Cli.run("migrate", "plan", "--from", "leaf", "--sample-ids",
                dir.resolve("absent.txt").toString());
        Cli.Result noAction = Cli.run("migrate");

        assertThat(neither.exitCode()).isEqualTo(2);
        assertThat(neither.err()).contains("give exactly one of --sample-ids FILE and --max-id N");
        assertThat(unknown.exitCode()).isEqualTo(2);
        assertThat(unknown.err()).contains("unknown --from 'flickr'");
        assertThat(missing.exitCode()).isEqualTo(2);
        assertThat(missing.err()).contains("cannot read --sample-ids").contains("absent.txt");
        assertThat(noAction.exitCode()).isEqualTo(2);
        assertThat(noAction.err()).contains("missing action: plan");
    }
}

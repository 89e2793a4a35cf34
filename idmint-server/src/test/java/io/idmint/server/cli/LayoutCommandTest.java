package io.idmint.server.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.idmint.server.harness.Cli;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LayoutCommandTest {

    @Test
    void layout_default_describesSnowflake() {
        Cli.Result r = Cli.run("layout");

        assertThat(r.exitCode()).as(r.err()).isZero();
        assertThat(r.out())
                .contains("layout              snowflake\n")
                .contains("time=41,datacenter=5,worker=5,sequence=12,tick=1ms,"
                        + "epoch=2026-01-01T00:00:00Z")
                .contains("zero 1 | time 41 | datacenter 5 | worker 5 | sequence 12")
                .containsPattern("sequence +12 +11\\.\\.0 +4095\n")
                .contains("max datacenter ID   31\n")
                .contains("max worker ID       31\n")
                .contains("IDs per tick        4096\n")
                .contains("IDs per second      4096000 per worker\n")
                .contains("epoch               2026-01-01T00:00:00.000Z\n")
                .containsPattern("exhaustion +2095-[^ ]+\\.[0-9]{3}Z "
                        + "\\(69\\.7 years after the epoch\\)\n")
                .doesNotContain("shard");
    }

    @Test
    void layout_presetsOfOtherSystems_showTheirEpochsAndTheUnsignedRule() {
        Cli.Result leaf = Cli.run("layout", "leaf");
        Cli.Result discord = Cli.run("layout", "discord");
        Cli.Result json = Cli.run("layout", "discord", "--json");

        assertThat(leaf.out()).contains("epoch               2010-11-04T01:42:54.657Z\n")
                .contains("max worker ID       1023\n").doesNotContain("unsigned");
        assertThat(discord.exitCode()).as(discord.err()).isZero();
        assertThat(discord.out()).contains("zero 0 | time 42 | datacenter 5 | worker 5")
                .contains("unsigned            all 64 bits: IDs read as unsigned; idmint "
                        + "decodes them but does not mint this layout\n");
        assertThat(json.out()).contains("\"total_bits\":64").contains("\"unsigned\":true");
    }

    @Test
    void layout_json_isOneObjectWithTheSameNumbers() {
        Cli.Result r = Cli.run("layout", "snowflake", "--json");

        assertThat(r.exitCode()).as(r.err()).isZero();
        assertThat(r.lines()).hasSize(1);
        assertThat(r.out()).startsWith("{\"name\":\"snowflake\",")
                .contains("{\"name\":\"sequence\",\"bits\":12,\"shift\":0,\"max\":4095}")
                .contains("\"max_datacenter_id\":31,\"max_worker_id\":31,\"ids_per_tick\":4096,")
                .contains("\"exhaustion\":\"2095-")
                .endsWith("\"years\":69.7}\n");
    }

    @Test
    void layout_customWithShard_showsMaxShard() {
        Cli.Result r = Cli.run("layout", "time=41,shard=10,sequence=12,tick=10ms");

        assertThat(r.exitCode()).as(r.err()).isZero();
        assertThat(r.out()).contains("layout              custom\n")
                .contains("max shard ID        1023\n")
                .contains("IDs per second      409600 per worker\n")
                .contains("tick                10ms\n");
    }

    @Test
    void layout_fromConfigFile_isUsed(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("idmint.properties"), "layout=js-safe\n");

        Cli.Result r = Cli.run("layout", "--config", file.toString());

        assertThat(r.out()).contains("layout              js-safe\n");
    }

    @Test
    void layout_argumentWinsOverEnvironment() {
        Cli.Result r = Cli.run(Map.of("IDMINT_LAYOUT", "js-safe"), "layout", "sonyflake");

        assertThat(r.out()).contains("layout              sonyflake\n");
    }

    @Test
    void layout_badSpec_exits2NamingIt() {
        Cli.Result r = Cli.run("layout", "time=41,worker=5");

        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.err()).contains("time=41,worker=5").contains("sequence");
        assertThat(r.out()).isEmpty();
    }

    @Test
    void layout_argumentAndFlag_exits2() {
        Cli.Result r = Cli.run("layout", "snowflake", "--layout", "js-safe");

        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.out()).isEmpty();
    }

    @Test
    void helpAndVersion_exit0() {
        assertThat(Cli.run("--help").out()).contains("next").contains("decode").contains("layout");
        assertThat(Cli.run("--version").out()).startsWith("idmint ");
        for (String command : new String[] {"next", "decode", "layout"}) {
            Cli.Result r = Cli.run(command, "--help");
            assertThat(r.exitCode()).isZero();
            assertThat(r.out()).startsWith("Usage: idmint " + command);
        }
    }

    @Test
    void noCommandOrUnknownCommand_exits2() {
        assertThat(Cli.run().exitCode()).isEqualTo(2);
        Cli.Result r = Cli.run("nxt");
        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.err()).contains("nxt");
    }
}

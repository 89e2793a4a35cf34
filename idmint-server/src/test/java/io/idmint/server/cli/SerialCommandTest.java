package io.idmint.server.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.idmint.server.config.Config;
import io.idmint.server.harness.Cli;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code idmint serial define|next|list} in-process, on the default store: H2 under data-dir. */
class SerialCommandTest {

    @TempDir
    Path data;

    /** The command on {@link #data}, set through the environment as an operator may. */
    private Cli.Result run(String... args) {
        return Cli.run(Map.of(Config.DATA_DIR.envVar(), data.toString()), args);
    }

    @Test
    void define_list_next_eachRunTakesItsOwnRange_neverAValueTwice() {
        Cli.Result defined = run("serial", "define", "receipt", "--template", "R-{counter:4}",
                "--step", "5");
        Cli.Result again = run("serial", "define", "receipt", "--template", "R-{counter:4}",
                "--step", "5");
        Cli.Result list = run("serial", "list");
        Cli.Result first = run("serial", "next", "receipt", "-n", "3");
        Cli.Result second = run("serial", "next", "receipt", "-n", "3");

        assertThat(defined.exitCode()).as(defined.err()).isZero();
        assertThat(defined.err()).contains("idmint: defined serial 'receipt': period=none "
                + "zone=UTC template=R-{counter:4} first=1 max-rate=10 step=5");
        assertThat(again.exitCode()).as("the same definition again").isZero();
        assertThat(list.out().strip()).isEqualTo("{\"name\":\"receipt\",\"period\":\"none\","
                + "\"zone\":\"UTC\",\"template\":\"R-{counter:4}\",\"first\":1,\"max_rate\":10,"
                + "\"step\":5}");
        assertThat(first.lines()).containsExactly("R-0001", "R-0002", "R-0003");
        // A run takes a range of step values; the rest of the last run's is never used.
        assertThat(second.lines()).containsExactly("R-0006", "R-0007", "R-0008");
    }

    @Test
    void badDefinitionsAndUnknownSerials_exit2NamingThem_andDefineNothing() {
        Cli.Result zone = run("serial", "define", "inv", "--period", "day", "--zone", "Moon/Base",
                "--template", "{date:yyyyMMdd}-{counter}");
        Cli.Result width = run("serial", "define", "inv", "--period", "day", "--template",
                "{date:yyyyMMdd}-{counter:2}");
        Cli.Result field = run("serial", "define", "inv", "--template", "{serial}");
        Cli.Result unknown = run("serial", "next", "inv");
        run("serial", "define", "inv", "--template", "I-{counter}");
        Cli.Result other = run("serial", "define", "inv", "--template", "J-{counter}");
        Cli.Result count = run("serial", "next", "inv", "-n", "0");

        assertThat(zone.exitCode()).isEqualTo(2);
        assertThat(zone.err()).contains("time zone 'Moon/Base' does not exist");
        assertThat(width.exitCode()).isEqualTo(2);
        assertThat(width.err()).contains("a counter of width 2 holds values up to 99");
        assertThat(field.exitCode()).isEqualTo(2);
        assertThat(field.err()).contains("unknown field {serial}");
        assertThat(unknown.exitCode()).isEqualTo(2);
        assertThat(unknown.err()).contains("serial 'inv' is not defined");
        assertThat(other.exitCode()).isEqualTo(2);
        assertThat(other.err()).contains("serial 'inv' is defined already")
                .contains("template=I-{counter}");
        assertThat(count.exitCode()).isEqualTo(2);
        assertThat(count.err()).contains("-n must be from 1 to 1000000, got 0");
    }

    @Test
    void countersCodes_needTheCodesKey_andDecodeWithIt() {
        String key = "000102030405060708090a0b0c0d0e0f";
        Map<String, String> keyed = Map.of(Config.DATA_DIR.envVar(), data.toString(),
                Config.CODES_KEY.envVar(), key);
        Cli.Result refused = run("serial", "define", "ticket", "--template", "T-{code:30}");
        Cli.Result listed = run("serial", "list");
        Cli.Result defined = Cli.run(keyed, "serial", "define", "ticket", "--template",
                "T-{code:30}");
        Cli.Result unkeyed = run("serial", "next", "ticket");
        Cli.Result next = Cli.run(keyed, "serial", "next", "ticket", "-n", "2");

        assertThat(refused.exitCode()).isNotZero();
        assertThat(refused.err()).contains("codes");
        assertThat(listed.out()).as("nothing was defined").isBlank();
        assertThat(defined.exitCode()).as(defined.err()).isZero();
        assertThat(unkeyed.exitCode()).isNotZero();
        assertThat(unkeyed.err()).contains("codes");
        assertThat(next.exitCode()).as(next.err()).isZero();
        io.idmint.codes.CodeCodec codec = io.idmint.codes.Codes.newBuilder()
                .key(1, io.idmint.codes.Keys.fromHex(key)).bits(30)
                .tweak("ticket".getBytes(java.nio.charset.StandardCharsets.UTF_8)).build();
        assertThat(next.lines()).hasSize(2).allMatch(v -> v.matches("T-[0-9A-Z]{8}"));
        assertThat(codec.decode(next.lines().get(0).substring(2))).isEqualTo(1);
        assertThat(codec.decode(next.lines().get(1).substring(2))).isEqualTo(2);
    }
}

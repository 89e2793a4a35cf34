package io.idmint.server.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.idmint.Layout;
import io.idmint.server.harness.Cli;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class RangeCommandTest {

    @Test
    void range_aDay_printsTheIdBoundsAndTheQuery_thatHoldEveryIdOfTheDay() {
        Cli.Result r = Cli.run("range", "--from", "2026-11-28", "--to", "2026-11-29");

        assertThat(r.exitCode()).as(r.err()).isZero();
        Layout l = Layout.SNOWFLAKE;
        long from = l.compose(l.tickOf(Instant.parse("2026-11-28T00:00:00Z").toEpochMilli()),
                0, 0, 0, 0);
        long to = l.compose(l.tickOf(Instant.parse("2026-11-29T00:00:00Z").toEpochMilli()),
                0, 0, 0, 0);
        assertThat(r.out()).contains("window  [2026-11-28T00:00:00Z, 2026-11-29T00:00:00Z)\n")
                .contains("sql     WHERE id >= " + from + " AND id < " + to + "\n")
                .doesNotContain("note");
        long lastOfDay = l.compose(l.tickOf(Instant.parse("2026-11-28T23:59:59.999Z")
                .toEpochMilli()), 31, 31, 0, 4095);
        assertThat(lastOfDay).isBetween(from, to - 1);
    }

    @Test
    void range_json_andALayoutWithLongTicks_saysTheBoundsAreWholeTicks() {
        Cli.Result json = Cli.run("range", "--layout", "sonyflake", "--from",
                "2026-11-28T00:00:00.005Z", "--to", "2026-11-28T01:00:00Z", "--json");
        Cli.Result text = Cli.run("range", "--layout", "sonyflake", "--from",
                "2026-11-28T00:00:00.005Z", "--to", "2026-11-28T01:00:00Z");

        assertThat(json.exitCode()).as(json.err()).isZero();
        Layout l = Layout.SONYFLAKE;
        long from = l.compose(l.tickOf(Instant.parse("2026-11-28T00:00:00Z").toEpochMilli()),
                0, 0, 0, 0);
        assertThat(json.out()).startsWith("{\"kind\":\"snowflake\",\"layout\":\"" + l.spec()
                + "\"")
                .contains("\"id_from\":\"" + from + "\"");
        assertThat(text.out()).contains("note    bounds are whole 10 ms ticks");
    }

    @Test
    void range_badTimes_exit2NamingThem() {
        Cli.Result bad = Cli.run("range", "--from", "yesterday", "--to", "2026-11-29");
        Cli.Result early = Cli.run("range", "--from", "2025-01-01", "--to", "2026-11-29");
        Cli.Result empty = Cli.run("range", "--from", "2026-11-29", "--to", "2026-11-29");

        assertThat(bad.exitCode()).isEqualTo(2);
        assertThat(bad.err()).contains("--from 'yesterday' is neither an instant");
        assertThat(early.exitCode()).isEqualTo(2);
        assertThat(early.err()).contains("2025-01-01T00:00:00Z is before layout snowflake's "
                + "epoch 2026-01-01T00:00:00Z");
        assertThat(empty.exitCode()).isEqualTo(2);
        assertThat(empty.err()).contains("is not before its end");
        assertThat(bad.out() + early.out() + empty.out()).isEmpty();
    }

    @Test
    void range_uuid7AndObjectId_boundEveryIdOfTheWindow_andAnUnknownKindExits2() {
        Cli.Result uuid = Cli.run("range", "--from", "2026-11-24", "--to", "2026-11-25",
                "--kind", "uuid7", "--json");
        assertThat(uuid.exitCode()).as(uuid.err()).isZero();
        long first = Instant.parse("2026-11-24T00:00:00Z").toEpochMilli();
        long after = Instant.parse("2026-11-25T00:00:00Z").toEpochMilli();
        assertThat(uuid.out()).contains("\"kind\":\"uuid7\"")
                .contains("\"id_from\":\"" + new java.util.UUID(first << 16 | 0x7000L,
                        Long.MIN_VALUE) + "\"")
                .contains("\"id_to\":\"" + new java.util.UUID(after << 16 | 0x7000L,
                        Long.MIN_VALUE) + "\"");

        Cli.Result oid = Cli.run("range", "--from", "2026-11-24T00:00:00.5Z", "--to",
                "2026-11-24T00:00:01.5Z", "--kind", "objectid");
        assertThat(oid.exitCode()).as(oid.err()).isZero();
        long seconds = first / 1000;
        assertThat(oid.out()).contains("ids     [" + Long.toHexString(seconds)
                + "0000000000000000, " + Long.toHexString(seconds + 2) + "0000000000000000)")
                .contains("$gte: ObjectId(").contains("whole seconds");

        Cli.Result bad = Cli.run("range", "--from", "2026-11-24", "--to", "2026-11-25",
                "--kind", "ulid");
        assertThat(bad.exitCode()).isEqualTo(2);
        assertThat(bad.err()).contains("--kind must be snowflake, uuid7 or objectid, got 'ulid'");
        assertThat(bad.out()).isEmpty();
    }
}

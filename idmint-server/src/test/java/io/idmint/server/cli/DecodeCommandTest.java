package io.idmint.server.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.idmint.IdCodec;
import io.idmint.Layout;
import io.idmint.server.harness.Cli;
import io.idmint.server.json.Json;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class DecodeCommandTest {

    /** One second after the default epoch, datacenter 3, worker 17, sequence 42. */
    private static final long ID = Layout.SNOWFLAKE.compose(1000, 3, 17, 0, 42);
    private static final String JSON = "{\"id\":\"" + ID + "\",\"timestamp_ms\":1767225601000,"
            + "\"timestamp\":\"2026-01-01T00:00:01.000Z\",\"datacenter_id\":3,\"worker_id\":17,"
            + "\"sequence_number\":42}\n";

    @Test
    void decode_decimal_printsExactJson() {
        Cli.Result r = Cli.run("decode", Long.toString(ID));

        assertThat(r.exitCode()).as(r.err()).isZero();
        assertThat(r.out()).isEqualTo(JSON);
        assertThat(r.err()).isEmpty();
    }

    @Test
    void decode_hexAndBase32_printTheSameAsDecimal() {
        Cli.Result r = Cli.run("decode", "0x" + IdCodec.HEX.format(ID),
                "0X" + Long.toHexString(ID).toUpperCase(Locale.ROOT), IdCodec.BASE32.format(ID),
                IdCodec.BASE32.format(ID).toLowerCase(Locale.ROOT));

        assertThat(r.exitCode()).as(r.err()).isZero();
        assertThat(r.out()).isEqualTo(JSON.repeat(4));
    }

    @Test
    void decode_typedId_readsTheIdAfterItsPrefix() {
        Cli.Result r = Cli.run("decode", new io.idmint.TypedId("ord", ID).toString());

        assertThat(r.exitCode()).as(r.err()).isZero();
        assertThat(r.out()).isEqualTo(JSON);
        Cli.Result bad = Cli.run("decode", "Ord_" + IdCodec.BASE32.format(ID));
        assertThat(bad.exitCode()).isEqualTo(2);
        assertThat(bad.err()).contains("is not a typed ID: its prefix 'Ord' has 'O'");
    }

    @Test
    void decode_unsigned64BitLayout_printsTheUnsignedId() {
        Cli.Result r = Cli.run("decode", "--layout", "discord", "18446744073709551615",
                "175928847299117063");

        assertThat(r.exitCode()).as(r.err()).isZero();
        assertThat(r.lines()).containsExactly("{\"id\":\"18446744073709551615\","
                + "\"timestamp_ms\":5818116911103,\"timestamp\":\"2154-05-15T07:35:11.103Z\","
                + "\"datacenter_id\":31,\"worker_id\":31,\"sequence_number\":4095}",
                "{\"id\":\"175928847299117063\",\"timestamp_ms\":1462015105796,"
                + "\"timestamp\":\"2016-04-30T11:18:25.796Z\",\"datacenter_id\":1,"
                + "\"worker_id\":0,\"sequence_number\":7}");
    }

    @Test
    void decode_signBitIn63BitLayout_isRefusedNamingTheId() {
        Cli.Result r = Cli.run("decode", "--layout", "leaf", "18446744073709551615");

        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.out()).isEmpty();
        assertThat(r.err()).contains("'18446744073709551615'");
    }

    @Test
    void decode_shardLayout_addsShardId() {
        Layout layout = Layout.parse("time=41,shard=10,sequence=12");
        long id = layout.compose(5, 0, 0, 1000, 7);

        Cli.Result r = Cli.run("decode", "--layout", "time=41,shard=10,sequence=12",
                Long.toString(id));

        assertThat(r.exitCode()).as(r.err()).isZero();
        assertThat(r.out()).isEqualTo("{\"id\":\"" + id + "\",\"timestamp_ms\":1767225600005,"
                + "\"timestamp\":\"2026-01-01T00:00:00.005Z\",\"datacenter_id\":0,\"worker_id\":0,"
                + "\"shard_id\":1000,\"sequence_number\":7}\n");
    }

    @Test
    void decode_layoutFromEnvironment_isUsed() {
        Layout layout = Layout.parse("js-safe");
        long id = layout.compose(1, 0, 9, 0, 3);

        Cli.Result r = Cli.run(Map.of("IDMINT_LAYOUT", "js-safe"), "decode", Long.toString(id));

        assertThat(r.out()).contains("\"worker_id\":9,").contains("\"sequence_number\":3}");
    }

    @ParameterizedTest
    @ValueSource(strings = {"abc", "-1", "12345678901234567890", "0x", "0xZZ",
        "9223372036854775808", "ZZZZZZZZZZZZZ", ""})
    void decode_badId_exits2NamingItAndPrintsNothing(String bad) {
        Cli.Result r = Cli.run("decode", Long.toString(ID), bad);

        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.err()).contains("'" + bad + "'").doesNotContain("Exception");
        assertThat(r.out()).isEmpty();
    }

    @Test
    void decode_bareSixteenHexDigits_readsTheApisValueHex() {
        String valueHex = IdCodec.HEX.format(ID);

        Cli.Result r = Cli.run("decode", valueHex, "--format", "hex", valueHex.substring(2));

        assertThat(r.exitCode()).as(r.err()).isZero();
        assertThat(r.out()).isEqualTo(JSON.repeat(2));
    }

    @Test
    void decode_validInTwoForms_exits2NamingBothUnlessFormatChooses() {
        Cli.Result r = Cli.run("decode", "1000000000000000");

        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.err()).contains("'1000000000000000' is ambiguous: it reads as decimal ID "
                + "1000000000000000 and as hex ID 1152921504606846976");
        assertThat(r.out()).isEmpty();
        assertThat(Cli.run("decode", "--format", "decimal", "1000000000000000").out())
                .startsWith("{\"id\":\"1000000000000000\",");
        assertThat(Cli.run("decode", "--format", "HEX", "1000000000000000").out())
                .startsWith("{\"id\":\"1152921504606846976\",");
        Cli.Result bad = Cli.run("decode", "--format", "octal", "1");
        assertThat(bad.exitCode()).isEqualTo(2);
        assertThat(bad.err()).contains("--format must be decimal, hex or base32, got 'octal'");
    }

    @Test
    void decode_allDigitBase32_exits2NamingBothReadingsAndFormatReadsIt() {
        Cli.Result r = Cli.run("decode", "0400000000005");

        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.err()).contains("'0400000000005' is ambiguous: it reads as decimal ID "
                + "400000000005 and as base32 ID 144115188075855877");
        assertThat(r.out()).isEmpty();
        assertThat(Cli.run("decode", "--format", "base32", "0400000000005").out())
                .startsWith("{\"id\":\"144115188075855877\",");
    }

    @Test
    void decode_severalBadIds_namesEveryOne() {
        Cli.Result r = Cli.run("decode", "abc", Long.toString(ID), "xyz");

        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.err()).contains("'abc'").contains("'xyz'");
        assertThat(r.out()).isEmpty();
    }

    @Test
    void decode_idWiderThanTheLayout_exits2() {
        long wide = Layout.SNOWFLAKE.compose(1L << 40, 0, 0, 0, 0);

        Cli.Result r = Cli.run("decode", "--layout", "js-safe", "0x" + IdCodec.HEX.format(wide));

        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.err()).contains("'0x" + IdCodec.HEX.format(wide) + "'").contains("js-safe");
        assertThat(r.out()).isEmpty();
    }

    @Test
    void decode_noId_exits2() {
        Cli.Result r = Cli.run("decode");

        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.err()).contains("ID");
    }

    @Test
    void json_escapesQuotesBackslashesAndControls() {
        assertThat(Json.quote("a\"b\\c\nd\u0001")).isEqualTo("\"a\\\"b\\\\c\\nd\\u0001\"");
    }
}

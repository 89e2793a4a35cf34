package io.idmint.server.json;

import static org.assertj.core.api.Assertions.assertThat;

import io.idmint.IdParts;
import io.idmint.Layout;
import org.junit.jupiter.api.Test;

class JsonBytesTest {

    @Test
    void number_everyMagnitudeAndSign() {
        JsonBytes out = new JsonBytes(4);
        long[] values = {0, 1, 9, 10, 99, 100, 123456789, 999_999_999_999_999_999L,
            1_000_000_000_000_000_000L, Long.MAX_VALUE, -1, -10, Long.MIN_VALUE + 1,
            Long.MIN_VALUE};
        for (long v : values) {
            assertThat(out.reset().number(v).toString()).isEqualTo(Long.toString(v));
        }
        for (long v = 1; v > 0 && v < Long.MAX_VALUE / 3; v = v * 3 + 1) {
            assertThat(out.reset().number(v).toString()).isEqualTo(Long.toString(v));
        }
    }

    @Test
    void quotedHex16_isSixteenLowercaseDigits() {
        JsonBytes out = new JsonBytes(1);
        assertThat(out.quotedHex16(0).toString()).isEqualTo("\"0000000000000000\"");
        assertThat(out.reset().quotedHex16(0x02798e94a8c1f000L).toString())
                .isEqualTo("\"02798e94a8c1f000\"");
        assertThat(out.reset().quotedHex16(Long.MAX_VALUE).toString())
                .isEqualTo("\"7fffffffffffffff\"");
    }

    @Test
    void string_isEscaped() {
        assertThat(new JsonBytes(1).string("a\"b\\c\n\u0001é").toString())
                .isEqualTo("\"a\\\"b\\\\c\\n\\u0001é\"");
    }

    @Test
    void string_printableAsciiAndTheRestAsJsonQuoteWritesThem() {
        JsonBytes out = new JsonBytes(1);
        for (String s : new String[] {"", "order", "a b~!", "tab\there", "\u007f", "ü", "\"",
            "\\", "a\u2028b"}) {
            assertThat(out.reset().raw('[').string(s).raw(']').toString())
                    .isEqualTo("[" + Json.quote(s) + "]");
        }
    }

    @Test
    void quotedIso_isWhatApiJsonIsoWrites() {
        JsonBytes out = new JsonBytes(1);
        long[] edges = {0, -1, 1, 999, 1000, 86_399_999, 86_400_000, -86_400_000,
            951_782_400_000L, // 2000-02-29
            4_107_542_399_999L, // 2100-02-28T23:59:59.999
            253_402_300_799_999L, // 9999-12-31T23:59:59.999
            253_402_300_800_000L, // 10000-01-01: the fallback
            -62_167_219_200_000L, // 0000-01-01
            -62_167_219_200_001L, // -0001-12-31T23:59:59.999: the fallback
            Long.MAX_VALUE, Long.MIN_VALUE};
        for (long ms : edges) {
            assertThat(out.reset().quotedIso(ms).toString()).as("%d", ms)
                    .isEqualTo("\"" + ApiJson.iso(ms) + "\"");
        }
        java.util.SplittableRandom random = new java.util.SplittableRandom(18);
        for (int i = 0; i < 200_000; i++) {
            long ms = random.nextLong(-62_167_219_200_000L, 253_402_300_800_000L);
            assertThat(out.reset().quotedIso(ms).toString()).as("%d", ms)
                    .isEqualTo("\"" + ApiJson.iso(ms) + "\"");
        }
    }

    @Test
    void toBuffer_copiesAndGrowsPastTheInitialCapacity() {
        JsonBytes out = new JsonBytes(2);
        out.raw(JsonBytes.ascii("{\"ids\":[")).quoted(178294819283726336L).raw(']').raw('}');
        assertThat(out.toBuffer().toString()).isEqualTo("{\"ids\":[\"178294819283726336\"]}");
    }

    @Test
    void apiJson_shapesAsSpecShowsThem() {
        // The ID of the example in docs/http-grpc.md (whose other values are illustrative).
        IdParts p = Layout.SNOWFLAKE.decode(178294819283726336L);
        String detailed = ApiJson.parts(new JsonBytes(8), Layout.SNOWFLAKE, p).toString();
        assertThat(detailed).isEqualTo("{\"value_string\":\"178294819283726336\","
                + "\"value_hex\":\"02796e3188b2f000\",\"breakdown\":{\"timestamp_ms\":"
                + p.timestampMillis() + ",\"datacenter_id\":" + p.datacenterId()
                + ",\"worker_id\":" + p.workerId() + ",\"sequence_number\":" + p.sequence()
                + "}}");
        String lean = ApiJson.lean(new JsonBytes(8), Layout.SNOWFLAKE, p).toString();
        assertThat(lean).isEqualTo("{\"id\":\"178294819283726336\",\"timestamp\":\""
                + ApiJson.iso(p.timestampMillis()) + "\",\"datacenter\":" + p.datacenterId()
                + ",\"worker\":" + p.workerId() + ",\"sequence\":" + p.sequence() + "}");
        assertThat(ApiJson.iso(1739261642113L)).isEqualTo("2025-02-11T08:14:02.113Z");
        assertThat(ApiJson.iso(1780416300000L)).isEqualTo("2026-06-02T16:05:00.000Z");
    }

    @Test
    void apiJson_shardLayouts_addTheShard() {
        Layout instagram = Layout.parse("instagram");
        long id = instagram.compose(5, 0, 0, 77, 3);
        IdParts p = instagram.decode(id);
        assertThat(ApiJson.parts(new JsonBytes(8), instagram, p).toString())
                .contains(",\"worker_id\":0,\"shard_id\":77,\"sequence_number\":3}}");
        assertThat(ApiJson.lean(new JsonBytes(8), instagram, p).toString())
                .contains(",\"worker\":0,\"shard\":77,\"sequence\":3}");
    }
}

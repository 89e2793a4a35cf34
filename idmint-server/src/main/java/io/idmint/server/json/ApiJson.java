package io.idmint.server.json;

import io.idmint.IdParts;
import io.idmint.Layout;
import io.idmint.segment.SerialDefinition;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

/** The JSON shapes of the HTTP API that describe IDs (docs/http-grpc.md), as bytes. */
public final class ApiJson {

    /**
     * The one timestamp format of the CLI and HTTP: ISO-8601 in UTC, always with milliseconds
     * ({@code 2025-02-11T08:14:02.113Z}, {@code 2026-01-01T00:00:00.000Z}).
     */
    public static final DateTimeFormatter ISO_MILLIS =
            DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSSX").withZone(ZoneOffset.UTC);

    private static final byte[] IDS_OPEN = JsonBytes.ascii("{\"ids\":[");
    private static final byte[] GENERATED_AT = JsonBytes.ascii("],\"generated_at\":");
    private static final byte[] VALUE_STRING = JsonBytes.ascii("\"value_string\":");
    private static final byte[] CODE = JsonBytes.ascii("{\"code\":");
    private static final byte[] KEY_VERSION = JsonBytes.ascii(",\"key_version\":");
    private static final byte[] VALUE_HEX = JsonBytes.ascii(",\"value_hex\":");
    private static final byte[] TIMESTAMP_MS = JsonBytes.ascii(",\"breakdown\":{\"timestamp_ms\":");
    private static final byte[] DATACENTER_ID = JsonBytes.ascii(",\"datacenter_id\":");
    private static final byte[] WORKER_ID = JsonBytes.ascii(",\"worker_id\":");
    private static final byte[] SHARD_ID = JsonBytes.ascii(",\"shard_id\":");
    private static final byte[] SEQUENCE_NUMBER = JsonBytes.ascii(",\"sequence_number\":");
    private static final byte[] ID = JsonBytes.ascii("{\"id\":");
    private static final byte[] TIMESTAMP = JsonBytes.ascii(",\"timestamp\":");
    private static final byte[] DATACENTER = JsonBytes.ascii(",\"datacenter\":");
    private static final byte[] WORKER = JsonBytes.ascii(",\"worker\":");
    private static final byte[] SHARD = JsonBytes.ascii(",\"shard\":");
    private static final byte[] SEQUENCE = JsonBytes.ascii(",\"sequence\":");

    private ApiJson() {
    }

    /**
     * A serial's definition as the API and the CLI write it: {@code {"name":…,"period":…,
     * "zone":…,"template":…,"first":…,"max_rate":…,"step":…}}, the define body's fields.
     */
    public static Json serial(SerialDefinition d) {
        return new Json().add("name", d.name()).add("period", d.period().key())
                .add("zone", d.zone().getId()).add("template", d.template())
                .add("first", d.first()).add("max_rate", d.maxRate()).add("step", d.step());
    }

    /**
     * {@code idmint range --json} and {@code GET /api/v1/range}: {@code {"kind":…,"layout":…,
     * "from":…,"to":…,"id_from":…,"id_to":…}}, {@code layout} only for the layout's own IDs.
     */
    public static String window(String kind, String layout, String from, String to,
            String idFrom, String idTo) {
        Json json = new Json().add("kind", kind);
        if (layout != null) {
            json.add("layout", layout);
        }
        return json.add("from", from).add("to", to).add("id_from", idFrom).add("id_to", idTo)
                .toString();
    }

    public static String iso(long unixMillis) {
        return ISO_MILLIS.format(Instant.ofEpochMilli(unixMillis));
    }

    /** {@code GET /api/v1/ids}: {@code {"ids":[{…},…],"generated_at":"…"}}. */
    public static JsonBytes ids(JsonBytes out, Layout layout, long[] ids, int n, long nowMillis) {
        boolean shard = hasShard(layout);
        out.reserve(n * 200 + 64).raw(IDS_OPEN);
        for (int i = 0; i < n; i++) {
            if (i > 0) {
                out.raw(',');
            }
            parts(out, shard, layout.decode(ids[i]));
        }
        return out.raw(GENERATED_AT).quotedIso(nowMillis).raw('}');
    }

    /**
     * {@code GET /api/v1/ids/{id}}: {@code {"value_string":…,"value_hex":…,"breakdown":{…}}},
     * with {@code shard_id} in the breakdown only for layouts with a shard field.
     */
    public static JsonBytes parts(JsonBytes out, Layout layout, IdParts p) {
        return parts(out, hasShard(layout), p);
    }

    /**
     * {@code GET /api/v1/codes/{code}}: {@code {"code":…,"key_version":…,"value_string":…,
     * "value_hex":…,"breakdown":{…}}}.
     */
    public static JsonBytes codeParts(JsonBytes out, Layout layout, String code, int keyVersion,
            IdParts p) {
        out.raw(CODE).string(code).raw(KEY_VERSION).number(keyVersion).raw(',');
        return fields(out, hasShard(layout), p);
    }

    private static JsonBytes parts(JsonBytes out, boolean shard, IdParts p) {
        return fields(out.raw('{'), shard, p);
    }

    /** The fields of {@link #parts}, after its opening brace. */
    private static JsonBytes fields(JsonBytes out, boolean shard, IdParts p) {
        out.raw(VALUE_STRING).quoted(p.id()).raw(VALUE_HEX).quotedHex16(p.id())
                .raw(TIMESTAMP_MS).number(p.timestampMillis())
                .raw(DATACENTER_ID).number(p.datacenterId())
                .raw(WORKER_ID).number(p.workerId());
        if (shard) {
            out.raw(SHARD_ID).number(p.shardId());
        }
        return out.raw(SEQUENCE_NUMBER).number(p.sequence()).raw('}').raw('}');
    }

    /**
     * {@code GET /v1/id/decode}: {@code {"id":"…","timestamp":"ISO","datacenter":…,
     * "worker":…,"sequence":…}}, with {@code shard} for layouts with a shard field.
     */
    public static JsonBytes lean(JsonBytes out, Layout layout, IdParts p) {
        out.raw(ID).quoted(p.id()).raw(TIMESTAMP).quotedIso(p.timestampMillis())
                .raw(DATACENTER).number(p.datacenterId())
                .raw(WORKER).number(p.workerId());
        if (hasShard(layout)) {
            out.raw(SHARD).number(p.shardId());
        }
        return out.raw(SEQUENCE).number(p.sequence()).raw('}');
    }

    private static boolean hasShard(Layout layout) {
        return layout.bits(Layout.Field.SHARD) > 0;
    }
}

package io.idmint.server.cli;

import io.idmint.IdCodec;
import io.idmint.IdParts;
import io.idmint.Layout;
import io.idmint.server.config.Config;
import io.idmint.server.json.ApiJson;
import io.idmint.server.json.Json;
import io.idmint.server.mint.CodesAndFormats;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code idmint decode ID...}: each ID's parts as one JSON object per line. */
@Command(name = "decode", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Prints each ID's parts as one JSON object per line.",
            "Fields: {\"id\":\"…\",\"timestamp_ms\":…,\"timestamp\":\"ISO-8601\","
                    + "\"datacenter_id\":…,\"worker_id\":…,\"sequence_number\":…}",
            "and \"shard_id\" when the layout has a shard field.",
            "A code (15 symbols, hyphens optional; needs the key) adds \"code\" and "
                    + "\"key_version\".",
            "A fenced UUIDv7 (--kind fenced-uuid7) prints the parts of the ID it carries.",
            "Without --kind the shape decides: 36 characters with hyphens, or a TypeID "
                    + "(prefix_ and 26 symbols): UUIDv7; 24 hex "
                    + "digits: ObjectId; 32 hex digits: 128-bit flake; 15 symbols not all "
                    + "digits, or with hyphens: code; else an ID.",
            "An ID valid in two forms (such as 16 digits: decimal or hex) is refused naming both "
                    + "readings; --format reads it one way.",
            "Prints nothing when any input is bad."})
public final class DecodeCommand implements Callable<Integer> {

    private final Invocation invocation;

    @Spec
    CommandSpec spec;

    @Parameters(arity = "1..*", paramLabel = "ID",
            description = "decimal, hex (0x optional with 16 digits), or 13 Crockford base32 "
                    + "symbols, or typed (prefix_ and 13 symbols); or a code, UUIDv7 (or its "
                    + "TypeID), ObjectId or 128-bit flake")
    List<String> inputs;

    @picocli.CommandLine.Option(names = "--format", paramLabel = "FORMAT",
            description = "read every ID only as decimal, hex or base32 (default: any form it "
                    + "is valid in, refusing one valid in two)")
    String format;

    @picocli.CommandLine.Option(names = "--kind", paramLabel = "KIND",
            description = "read every input as this: snowflake, code, uuid7, fenced-uuid7 "
                    + "(the ID a fenced UUIDv7 carries, for the layout), objectid or flake128 "
                    + "(default: by its shape)")
    String kind;

    private Config config;
    private io.idmint.codes.CodeCodec codes;
    /** The form --format names, or null to read any. */
    private IdCodec readAs;

    public DecodeCommand(Invocation invocation) {
        this.invocation = invocation;
    }

    @Override
    public Integer call() {
        config = ConfigOptions.load(spec, invocation.env());
        Layout layout = config.get(Config.LAYOUT);
        String forced = kind == null ? null : kind.toLowerCase(java.util.Locale.ROOT);
        if (forced != null && !List.of("snowflake", "code", "uuid7", "fenced-uuid7", "objectid",
                "flake128").contains(forced)) {
            throw new picocli.CommandLine.ParameterException(spec.commandLine(), "--kind must "
                    + "be snowflake, code, uuid7, fenced-uuid7, objectid or flake128, got '"
                    + kind + "'");
        }
        IdCodec codec = null;
        if (format != null) {
            try {
                codec = IdCodec.named(format);
            } catch (IllegalArgumentException e) {
                throw new picocli.CommandLine.ParameterException(spec.commandLine(),
                        "--format must be decimal, hex or base32, got '" + format + "'");
            }
            if (forced != null && !forced.equals("snowflake")) {
                throw new picocli.CommandLine.ParameterException(spec.commandLine(), "--format "
                        + "reads 64-bit IDs; it cannot be combined with --kind " + kind);
            }
            forced = "snowflake";
        }
        readAs = codec;
        boolean shard = layout.bits(Layout.Field.SHARD) > 0;
        List<String> decoded = new ArrayList<>();
        List<String> errors = new ArrayList<>();
        for (String input : inputs) {
            try {
                decoded.add(decodeAny(layout, shard, forced != null ? forced : kindOf(input),
                        input));
            } catch (IllegalArgumentException e) {
                errors.add(e.getMessage());
            }
        }
        if (!errors.isEmpty()) {
            throw new IllegalArgumentException(String.join(System.lineSeparator() + "idmint: ",
                    errors));
        }
        PrintWriter out = spec.commandLine().getOut();
        for (String line : decoded) {
            out.print(line);
            out.print('\n');
        }
        out.flush();
        return ExitCode.OK;
    }

    private IdParts decode(Layout layout, String input) {
        long id = readAs == null ? IdCodec.parseAny(input, layout) : readAs.parse(input, layout);
        try {
            return layout.decode(id);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("'" + input + "': " + e.getMessage(), e);
        }
    }

    /**
     * What an input looks like when no --kind is given. The shapes do not overlap: IDs are at
     * most 20 decimal digits, {@code 0x} hex or 13 base32 symbols, and never hold a hyphen; an
     * all-digit 15-character input is a decimal ID (use --kind code for such a code).
     */
    static String kindOf(String input) {
        if (CodesAndFormats.isUuidText(input)) {
            return "uuid7";
        }
        boolean hex = !input.isEmpty() && input.chars().allMatch(c -> (c >= '0' && c <= '9')
                || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'));
        if (hex && input.length() == 24) {
            return "objectid";
        }
        if (hex && input.length() == 32) {
            return "flake128";
        }
        String symbols = input.replace("-", "").replace(" ", "");
        boolean hyphenated = input.indexOf('-', 1) > 0;
        if (symbols.length() == io.idmint.codes.CodeCodec.LENGTH
                && (hyphenated || !symbols.chars().allMatch(c -> c >= '0' && c <= '9'))) {
            return "code";
        }
        return "snowflake";
    }

    private String decodeAny(Layout layout, boolean shard, String k, String input) {
        switch (k) {
            case "code": {
                CodesAndFormats.DecodedCode d =
                        CodesAndFormats.decodeCode(codes(input), input, layout);
                return fields(new Json().add("code", d.code()).add("key_version", d.keyVersion()),
                        d.parts(), shard).toString();
            }
            case "uuid7": {
                java.util.UUID u = CodesAndFormats.uuid7(input);
                long ms = io.idmint.formats.UuidV7.timestampMillis(u);
                return time(new Json().add("kind", "uuid7").add("value", u.toString()), ms)
                        .toString();
            }
            case "fenced-uuid7": {
                java.util.UUID u = CodesAndFormats.uuid7(input);
                IdParts parts;
                try {
                    parts = io.idmint.FencedUuidV7.decode(u, layout);
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException("'" + input + "': " + e.getMessage(), e);
                }
                return fields(new Json().add("kind", "fenced-uuid7").add("value", u.toString()),
                        parts, shard).toString();
            }
            case "objectid": {
                io.idmint.formats.ObjectId o = io.idmint.formats.ObjectId.parse(input);
                return time(new Json().add("kind", "objectid").add("value", o.toHexString()),
                        o.timestampMillis())
                        .add("random", o.toHexString().substring(8, 18))
                        .add("counter", o.counter()).toString();
            }
            case "flake128": {
                io.idmint.formats.Flake128 f = io.idmint.formats.Flake128.parse(input);
                return time(new Json().add("kind", "flake128").add("value", f.toHexString()),
                        f.timestampMillis())
                        .add("worker_id", f.workerId())
                        .add("sequence_number", f.sequence()).toString();
            }
            default:
                return json(decode(layout, input), shard);
        }
    }

    private static Json time(Json json, long ms) {
        return json.add("timestamp_ms", ms)
                .add("timestamp", ApiJson.iso(ms));
    }

    /** The codec, built on the first code; codes.dev cannot decode (its key is new). */
    private io.idmint.codes.CodeCodec codes(String input) {
        if (codes == null) {
            codes = CodesAndFormats.codec(config, line -> { }, false);
            if (codes == null) {
                throw new IllegalArgumentException("'" + input + "' is a code, and codes are "
                        + "not configured: set codes.key or codes.key-file to the key that made "
                        + "it");
            }
        }
        return codes;
    }

    static String json(IdParts p, boolean withShard) {
        return fields(new Json(), p, withShard).toString();
    }

    private static Json fields(Json json, IdParts p, boolean withShard) {
        json
                .add("id", Long.toUnsignedString(p.id()))
                .add("timestamp_ms", p.timestampMillis())
                .add("timestamp", ApiJson.iso(p.timestampMillis()))
                .add("datacenter_id", p.datacenterId())
                .add("worker_id", p.workerId());
        if (withShard) {
            json.add("shard_id", p.shardId());
        }
        return json.add("sequence_number", p.sequence());
    }
}

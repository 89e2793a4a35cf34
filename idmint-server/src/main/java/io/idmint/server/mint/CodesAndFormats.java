package io.idmint.server.mint;

import io.idmint.IdParts;
import io.idmint.codes.CodeCodec;
import io.idmint.codes.CodeSettings;
import io.idmint.formats.Flake128;
import io.idmint.formats.FormatGenerator;
import io.idmint.formats.ObjectId;
import io.idmint.formats.UuidV7;
import io.idmint.server.config.Config;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.function.Consumer;

/**
 * What the server and CLI serve besides 64-bit IDs: public codes (the IDs encrypted, from
 * {@code idmint-codes}) and the other ID formats (UUIDv7, ObjectId, 128-bit flakes). Codes need a
 * key and flakes a worker; without them those parts are "not configured" (HTTP 503, gRPC
 * FAILED_PRECONDITION, CLI exit 2) while everything else works, so a fresh {@code serve} starts
 * with no configuration. A key that is set but bad stops the start.
 */
public final class CodesAndFormats {

    public static final String CODES_NOT_CONFIGURED = "codes are not configured; set codes.key, "
            + "codes.key-file or codes.dev";
    public static final String FLAKES_NOT_CONFIGURED = "128-bit flakes are not configured; set "
            + "flake.worker (0 to 2^48-1 or a MAC address), unique per process";

    /** The symbols of a TypeID's suffix (a UUID in base32). */
    private static final int TYPEID_SUFFIX = 26;

    private final CodeCodec codes;
    private final FormatGenerator<UUID> uuids = UuidV7.newGenerator().build();
    private final FormatGenerator<ObjectId> objectIds = ObjectId.newGenerator().build();
    private final FormatGenerator<Flake128> flakes;

    public CodesAndFormats(CodeCodec codes, Long flakeWorker) {
        this.codes = codes;
        this.flakes = flakeWorker == null ? null
                : Flake128.newGenerator().workerId(flakeWorker).build();
    }

    /** From the configuration; {@code warn} hears the dev-mode warning. */
    public static CodesAndFormats fromConfig(Config config, Consumer<String> warn) {
        return new CodesAndFormats(codec(config, warn, true), config.get(Config.FLAKE_WORKER));
    }

    /**
     * The codec the configuration asks for, or null when codes are not configured.
     *
     * @param allowDev whether codes.dev may make up a key (not for decoding: a new random key
     *     decodes no code made before)
     * @throws IllegalArgumentException naming the keys when the configuration is contradictory or
     *     a key is bad (the message never holds key material)
     * @throws java.io.UncheckedIOException when the key file cannot be read
     */
    public static CodeCodec codec(Config config, Consumer<String> warn, boolean allowDev) {
        String hex = config.get(Config.CODES_KEY);
        Path file = config.get(Config.CODES_KEY_FILE);
        boolean dev = Boolean.TRUE.equals(config.get(Config.CODES_DEV));
        int version = config.get(Config.CODES_KEY_VERSION);
        Map<Integer, String> old = config.get(Config.CODES_OLD_KEYS);
        if (dev && !allowDev && hex == null && file == null) {
            throw new IllegalArgumentException("codes.dev makes a new random key each run, so "
                    + "codes from another run cannot be decoded; set codes.key or "
                    + "codes.key-file to the key that made them");
        }
        CodeCodec codec = CodeSettings.codec(hex, file, version, old, dev);
        if (dev) {
            warn.accept("WARNING: codes.dev is on: codes use a RANDOM key made at start (key "
                    + "version " + version + ").");
            warn.accept("WARNING: codes change on every restart and no other process can "
                    + "decode them. Never use codes.dev in production: set codes.key or "
                    + "codes.key-file.");
        }
        return codec;
    }

    /**
     * Codecs of counters over the configured keys: given the bits and a tweak (a serial's or a
     * segment tag's name), a codec of that domain ({@link CodeSettings#codecs}); null when codes
     * are not configured. A dev key (codes.dev) is made once for all of them.
     *
     * @throws IllegalArgumentException as {@link #codec}
     */
    public static java.util.function.BiFunction<Integer, String, CodeCodec> counterCodecs(
            Config config) {
        return CodeSettings.codecs(config.get(Config.CODES_KEY),
                config.get(Config.CODES_KEY_FILE), config.get(Config.CODES_KEY_VERSION),
                config.get(Config.CODES_OLD_KEYS),
                Boolean.TRUE.equals(config.get(Config.CODES_DEV)));
    }

    /**
     * Whether {@code text} is written as a UUID: 36 characters with a hyphen ninth, or a TypeID
     * ({@code prefix_} and 26 symbols, or the 26 alone). No ID, code or other format has either
     * shape.
     */
    public static boolean isUuidText(String text) {
        return text.length() == 36 && text.charAt(8) == '-'
                || text.length() - text.lastIndexOf('_') - 1 == TYPEID_SUFFIX;
    }

    /**
     * A version 7 UUID from its canonical text or its TypeID.
     *
     * @throws IllegalArgumentException naming the input and what is wrong with it
     */
    public static UUID uuid7(String text) {
        if (text.indexOf('_') < 0 && text.length() != TYPEID_SUFFIX) {
            return UuidV7.parse(text);
        }
        UUID u = io.idmint.formats.TypeId.parse(text).uuid();
        UuidV7.timestampMillis(u);
        return u;
    }

    /** The codec, or null when codes are not configured. */
    public CodeCodec codes() {
        return codes;
    }

    /** @throws NotConfiguredException when codes are not configured */
    public CodeCodec requireCodes() {
        if (codes == null) {
            throw new NotConfiguredException(CODES_NOT_CONFIGURED);
        }
        return codes;
    }

    public FormatGenerator<UUID> uuids() {
        return uuids;
    }

    public FormatGenerator<ObjectId> objectIds() {
        return objectIds;
    }

    /** @throws NotConfiguredException when flake.worker is not set */
    public FormatGenerator<Flake128> requireFlakes() {
        if (flakes == null) {
            throw new NotConfiguredException(FLAKES_NOT_CONFIGURED);
        }
        return flakes;
    }

    /** A code and what it stands for. */
    public record DecodedCode(String code, int keyVersion, IdParts parts) {
    }

    /**
     * Decodes a code and the ID in it.
     *
     * @throws IllegalArgumentException naming the problem: bad symbols, length or check symbol,
     *     an unknown key version, or an ID that is not one of this layout (a made-up code)
     * @throws NotConfiguredException when codes are not configured
     */
    public DecodedCode decodeCode(String text, io.idmint.Layout layout) {
        CodeCodec codec = requireCodes();
        return decodeCode(codec, text, layout);
    }

    public static DecodedCode decodeCode(CodeCodec codec, String text, io.idmint.Layout layout) {
        long id = codec.decode(text);
        int version = codec.keyVersion(text);
        IdParts parts;
        try {
            parts = layout.decode(id);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("code '" + text + "' passes its check symbol but "
                    + "stands for no ID of this layout (made up, or made by another deployment): "
                    + e.getMessage(), e);
        }
        return new DecodedCode(canonical(text), version, parts);
    }

    /**
     * A code as the encoder writes it: separators dropped, upper case, {@code O} as 0 and
     * {@code I}/{@code L} as 1 (call only on codes that decoded).
     */
    public static String canonical(String code) {
        StringBuilder sb = new StringBuilder(CodeCodec.LENGTH);
        for (int i = 0; i < code.length(); i++) {
            char c = Character.toUpperCase(code.charAt(i));
            if (c == '-' || c == ' ') {
                continue;
            }
            sb.append(c == 'O' ? '0' : c == 'I' || c == 'L' ? '1' : c);
        }
        return sb.toString().toUpperCase(Locale.ROOT);
    }

    /** A part of the service that needs configuration it does not have. */
    public static final class NotConfiguredException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        public NotConfiguredException(String message) {
            super(message);
        }
    }
}

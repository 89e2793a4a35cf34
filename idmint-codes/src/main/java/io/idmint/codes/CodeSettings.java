package io.idmint.codes;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Collections;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.function.BiFunction;

/**
 * A node's codes configuration ({@code codes.key}, {@code codes.key-file},
 * {@code codes.key-version}, {@code codes.old-keys}, {@code codes.dev}), read alike by the server
 * and the Spring Boot starter ({@code idmint.codes.*}), so both accept the same values and refuse
 * the same contradictions. Messages name the keys and never repeat key material.
 */
public final class CodeSettings {

    private CodeSettings() {
    }

    /**
     * Retired keys, still accepted for decoding: {@code version:hex,version:hex}.
     *
     * @return the hex keys by version (checked, not yet turned into bytes)
     * @throws IllegalArgumentException saying what is wrong, never the hex
     */
    public static SortedMap<Integer, String> oldKeys(String text) {
        SortedMap<Integer, String> keys = new TreeMap<>();
        for (String entry : text.split(",")) {
            String e = entry.strip();
            int colon = e.indexOf(':');
            if (colon < 0) {
                throw new IllegalArgumentException("expected version:hex entries separated by "
                        + "commas, such as 1:<32 or 64 hex digits>");
            }
            int version = keyVersion(e.substring(0, colon));
            if (keys.containsKey(version)) {
                throw new IllegalArgumentException("key version " + version + " appears twice");
            }
            String hex = e.substring(colon + 1).strip();
            try {
                Keys.fromHex(hex);
            } catch (IllegalArgumentException x) {
                throw new IllegalArgumentException("key version " + version + ": "
                        + x.getMessage(), x);
            }
            keys.put(version, hex);
        }
        return Collections.unmodifiableSortedMap(keys);
    }

    /**
     * A key version: a whole number from 0 to 31.
     *
     * @throws IllegalArgumentException saying so
     */
    public static int keyVersion(String text) {
        String s = text.strip();
        if (s.matches("[0-9]{1,2}") && Integer.parseInt(s) < Ff1.VERSIONS) {
            return Integer.parseInt(s);
        }
        throw new IllegalArgumentException("expected a key version from 0 to "
                + (Ff1.VERSIONS - 1));
    }

    /**
     * The codec the settings describe, or null when they configure no codes.
     *
     * @param hex {@code codes.key}, or null
     * @param file {@code codes.key-file}, or null
     * @param version {@code codes.key-version}: the current key's
     * @param old {@code codes.old-keys} ({@link #oldKeys}), or null
     * @param dev {@code codes.dev}: a random key made now, for development only
     * @throws IllegalArgumentException naming the keys when the settings contradict each other or
     *     a key is bad (the message never holds key material)
     * @throws java.io.UncheckedIOException when the key file cannot be read
     */
    public static CodeCodec codec(String hex, Path file, int version, Map<Integer, String> old,
            boolean dev) {
        BiFunction<Integer, String, CodeCodec> codecs = codecs(hex, file, version, old, dev);
        return codecs == null ? null : codecs.apply(Ff1.BITS, "");
    }

    /**
     * As {@link #codec}, a maker of codecs over the same keys for a domain of {@code bits} bits
     * and a tweak ({@link Codes#bits}, {@link Codes#tweak}, the tweak's UTF-8 bytes): a
     * counter's codes (a serial's, with its name as tweak). Null when the settings configure no
     * codes; with {@code codes.dev}, one random key for every codec it makes.
     *
     * @throws IllegalArgumentException as {@link #codec}, and naming a bad bits or tweak
     */
    public static BiFunction<Integer, String, CodeCodec> codecs(String hex, Path file,
            int version, Map<Integer, String> old, boolean dev) {
        if (hex != null && file != null) {
            throw new IllegalArgumentException("set codes.key or codes.key-file, not both");
        }
        if (dev && (hex != null || file != null)) {
            throw new IllegalArgumentException("codes.dev makes up a random key; it cannot be "
                    + "combined with codes.key or codes.key-file: unset codes.dev");
        }
        if (hex == null && file == null && !dev) {
            if (old != null) {
                throw new IllegalArgumentException("codes.old-keys needs a current key as well: "
                        + "set codes.key or codes.key-file");
            }
            return null;
        }
        if (old != null && old.containsKey(version)) {
            throw new IllegalArgumentException("codes.old-keys has key version " + version
                    + ", which is codes.key-version, the current key's: give each key its own "
                    + "version");
        }
        byte[] key = dev ? Keys.generate() : hex != null ? Keys.fromHex(hex) : Keys.fromFile(file);
        BiFunction<Integer, String, CodeCodec> make = (bits, tweak) -> {
            try {
                Codes builder = Codes.newBuilder().key(version, key);
                if (old != null) {
                    old.forEach((v, k) -> builder.key(v, Keys.fromHex(k)));
                }
                if (bits != Ff1.BITS) {
                    builder.bits(bits);
                }
                if (!tweak.isEmpty()) {
                    builder.tweak(tweak.getBytes(StandardCharsets.UTF_8));
                }
                return builder.currentVersion(version).build();
            } catch (IllegalArgumentException | IllegalStateException e) {
                throw new IllegalArgumentException("codes: " + e.getMessage(), e);
            }
        };
        // The IDs' codec, made now: every key checked here, not on the first use.
        CodeCodec ids = make.apply(Ff1.BITS, "");
        return (bits, tweak) -> bits == Ff1.BITS && tweak.isEmpty() ? ids
                : make.apply(bits, tweak);
    }
}

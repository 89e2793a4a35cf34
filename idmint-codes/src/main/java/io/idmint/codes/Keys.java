package io.idmint.codes;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Objects;

/**
 * AES keys for codes: 16 bytes (AES-128) or 32 bytes (AES-256), written as 32 or 64 hex digits.
 * Messages never repeat key material, only its length and where it came from.
 */
public final class Keys {

    private Keys() {
    }

    /**
     * The key written as 32 or 64 hex digits, either case; surrounding whitespace is ignored.
     *
     * @throws IllegalArgumentException for another length or a non-hex character
     */
    public static byte[] fromHex(String hex) {
        Objects.requireNonNull(hex, "hex");
        return parse(hex.strip(), "hex key");
    }

    /**
     * The key in a text file holding its 32 or 64 hex digits (a trailing newline is fine). Keep
     * the file readable by the service's user only.
     *
     * @throws IllegalArgumentException when the file does not hold such a key
     * @throws UncheckedIOException naming the file when it cannot be read
     */
    public static byte[] fromFile(Path file) {
        Objects.requireNonNull(file, "file");
        String text;
        try {
            text = Files.readString(file, StandardCharsets.US_ASCII);
        } catch (IOException e) {
            throw new UncheckedIOException("key file " + file + " cannot be read: " + e, e);
        }
        return parse(text.strip(), "key file " + file);
    }

    /**
     * A new random AES-256 key from a new {@link SecureRandom}: for development, where a key that
     * changes on restart (so yesterday's codes no longer decode) is acceptable.
     */
    public static byte[] generate() {
        return generate(new SecureRandom());
    }

    /** A new random AES-256 key from {@code random}. */
    public static byte[] generate(SecureRandom random) {
        byte[] key = new byte[32];
        random.nextBytes(key);
        return key;
    }

    /** The key as lowercase hex, as {@link #fromHex(String)} and key files read it. */
    public static String toHex(byte[] key) {
        checkLength(key.length, "key");
        return HexFormat.of().formatHex(key);
    }

    static void checkLength(int bytes, String what) {
        if (bytes != 16 && bytes != 32) {
            throw new IllegalArgumentException(what + " is " + bytes + " bytes; an AES key for "
                    + "codes is 16 bytes (AES-128) or 32 bytes (AES-256)");
        }
    }

    private static byte[] parse(String hex, String source) {
        if (hex.length() != 32 && hex.length() != 64) {
            throw new IllegalArgumentException(source + " has " + hex.length() + " characters; "
                    + "expected 32 or 64 hex digits (AES-128 or AES-256)");
        }
        for (int i = 0; i < hex.length(); i++) {
            if (!isHexDigit(hex.charAt(i))) {
                throw new IllegalArgumentException(source + " has a non-hex character at "
                        + "position " + (i + 1) + "; expected 32 or 64 hex digits");
            }
        }
        return HexFormat.of().parseHex(hex);
    }

    private static boolean isHexDigit(char c) {
        return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
    }
}

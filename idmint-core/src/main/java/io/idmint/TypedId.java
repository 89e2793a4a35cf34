package io.idmint;

import java.util.Objects;

/**
 * A 64-bit ID with a type prefix, TypeID's convention for idmint's snowflake-family IDs: {@code
 * prefix_} + the ID in 13 lowercase Crockford base32 symbols, e.g. {@code
 * ord_038gn61tm0000}. The symbols sort as the IDs do, and {@code idmint decode} reads the
 * 13-symbol form. An API hands out {@code ord_…} and refuses an {@code inv_…} where an order is
 * expected ({@link #parse(String, String)}). The prefix rule is TypeID's, which idmint-codes'
 * {@code TypeId} (a UUID with a prefix) shares.
 *
 * @param prefix as a TypeID's: 0 to 63 lowercase letters and {@code _}, neither first nor last
 * @param id a positive 64-bit ID
 */
public record TypedId(String prefix, long id) {

    private static final int SYMBOLS = 13;
    /** TypeID's base32 alphabet: Crockford's, lowercase. */
    private static final char[] ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz".toCharArray();
    private static final byte[] VALUES = new byte[128];

    static {
        java.util.Arrays.fill(VALUES, (byte) -1);
        for (int i = 0; i < ALPHABET.length; i++) {
            VALUES[ALPHABET[i]] = (byte) i;
        }
    }

    /** @throws IllegalArgumentException naming the prefix or the negative ID */
    public TypedId {
        Objects.requireNonNull(prefix, "prefix");
        String bad = prefixProblem(prefix);
        if (bad != null) {
            throw new IllegalArgumentException("type prefix '" + prefix + "' " + bad);
        }
        if (id < 0) {
            throw new IllegalArgumentException("ID " + id + " is negative");
        }
    }

    /**
     * Reads {@code prefix_} + 13 symbols (the prefix is what comes before the last {@code _}).
     *
     * @throws IllegalArgumentException naming the input and what is wrong with it
     */
    public static TypedId parse(String text) {
        Objects.requireNonNull(text, "text");
        int sep = text.lastIndexOf('_');
        String prefix = sep < 0 ? "" : text.substring(0, sep);
        String suffix = text.substring(sep + 1);
        if (sep == 0) {
            throw new IllegalArgumentException("'" + text + "' is not a typed ID: an empty "
                    + "prefix is written without the '_'");
        }
        String bad = prefixProblem(prefix);
        if (bad != null) {
            throw new IllegalArgumentException("'" + text + "' is not a typed ID: its prefix '"
                    + prefix + "' " + bad);
        }
        if (suffix.length() != SYMBOLS) {
            throw new IllegalArgumentException("'" + text + "' is not a typed ID: its ID has "
                    + suffix.length() + " symbols, not " + SYMBOLS);
        }
        if (suffix.charAt(0) > '7') {
            throw new IllegalArgumentException("'" + text + "' is not a typed ID: its ID starts "
                    + "with '" + suffix.charAt(0) + "', above 7, so it is no positive 64-bit ID");
        }
        long id = 0;
        for (int i = 0; i < SYMBOLS; i++) {
            char c = suffix.charAt(i);
            int v = c < 128 ? VALUES[c] : -1;
            if (v < 0) {
                throw new IllegalArgumentException("'" + text + "' is not a typed ID: '" + c
                        + "' at ID position " + (i + 1) + " is not one of "
                        + new String(ALPHABET));
            }
            id = id << 5 | v;
        }
        return new TypedId(prefix, id);
    }

    /**
     * Reads a typed ID that must have {@code prefix}.
     *
     * @throws IllegalArgumentException when it is none, or one of another type, naming both
     */
    public static TypedId parse(String text, String prefix) {
        TypedId id = parse(text);
        requireType(text, id.prefix(), prefix);
        return id;
    }

    /** {@code prefix_} + 13 symbols, or the symbols alone for an empty prefix. */
    @Override
    public String toString() {
        char[] out = new char[SYMBOLS];
        long v = id;
        for (int i = SYMBOLS - 1; i >= 0; i--) {
            out[i] = ALPHABET[(int) (v & 31)];
            v >>>= 5;
        }
        return prefix.isEmpty() ? new String(out) : prefix + "_" + new String(out);
    }

    /**
     * Why {@code prefix} is no type prefix, or null when it is one: 0 to 63 lowercase ASCII
     * letters and {@code _}, neither first nor last (TypeID v0.3's rule).
     */
    public static String prefixProblem(String prefix) {
        if (prefix.length() > 63) {
            return "has " + prefix.length() + " characters, more than 63";
        }
        for (int i = 0; i < prefix.length(); i++) {
            char c = prefix.charAt(i);
            if (c != '_' && (c < 'a' || c > 'z')) {
                return "has '" + c + "': only lowercase letters a-z and '_' may be in a prefix";
            }
        }
        if (!prefix.isEmpty() && (prefix.charAt(0) == '_'
                || prefix.charAt(prefix.length() - 1) == '_')) {
            return "starts or ends with '_'";
        }
        return null;
    }

    /**
     * Refuses an ID of another type where one of type {@code expected} is expected.
     *
     * @param text the ID as given, for the message
     * @param actual its prefix
     * @throws IllegalArgumentException naming both prefixes when they differ
     */
    public static void requireType(String text, String actual, String expected) {
        if (!actual.equals(expected)) {
            throw new IllegalArgumentException("'" + text + "' is " + (actual.isEmpty()
                    ? "an ID without a type prefix" : "an '" + actual + "' ID") + " where "
                    + (expected.isEmpty() ? "one without a prefix" : "an '" + expected
                            + "' one") + " is expected");
        }
    }
}

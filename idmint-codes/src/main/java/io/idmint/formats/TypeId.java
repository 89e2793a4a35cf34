package io.idmint.formats;

import io.idmint.TypedId;
import java.util.Objects;
import java.util.UUID;

/**
 * A TypeID (specification v0.3): a type prefix and a UUID, written {@code prefix_suffix}, the
 * suffix the UUID's 128 bits in 26 lowercase Crockford base32 symbols, e.g. {@code
 * user_01h455vb4pex5vsknk084sn02q}. An API hands out {@code ord_…} and can refuse an {@code
 * inv_…} where an order is expected. Checked against the specification's own {@code valid} and
 * {@code invalid} test files.
 *
 * @param prefix 0 to 63 lowercase ASCII letters and underscores, neither first nor last; empty
 *     for no prefix (then no separator is written)
 * @param uuid the UUID, any version (a UUIDv7 for time-ordered IDs)
 */
public record TypeId(String prefix, UUID uuid) {

    /** The longest prefix. */
    public static final int MAX_PREFIX = 63;

    private static final char[] ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz".toCharArray();
    private static final int SUFFIX = 26;
    private static final byte[] VALUES = new byte[128];

    static {
        java.util.Arrays.fill(VALUES, (byte) -1);
        for (int i = 0; i < ALPHABET.length; i++) {
            VALUES[ALPHABET[i]] = (byte) i;
        }
    }

    /** @throws IllegalArgumentException naming the prefix when it breaks the rule */
    public TypeId {
        Objects.requireNonNull(prefix, "prefix");
        Objects.requireNonNull(uuid, "uuid");
        String bad = TypedId.prefixProblem(prefix);
        if (bad != null) {
            throw new IllegalArgumentException("TypeID prefix '" + prefix + "' " + bad);
        }
    }

    /**
     * Reads a TypeID: the prefix is what comes before the last {@code _}.
     *
     * @throws IllegalArgumentException naming the input and what is wrong with it
     */
    public static TypeId parse(String text) {
        Objects.requireNonNull(text, "text");
        int sep = text.lastIndexOf('_');
        String prefix = sep < 0 ? "" : text.substring(0, sep);
        String suffix = text.substring(sep + 1);
        if (sep == 0) {
            throw new IllegalArgumentException("'" + text + "' is not a TypeID: an empty prefix "
                    + "is written without the '_'");
        }
        String bad = TypedId.prefixProblem(prefix);
        if (bad != null) {
            throw new IllegalArgumentException("'" + text + "' is not a TypeID: its prefix '"
                    + prefix + "' " + bad);
        }
        if (suffix.length() != SUFFIX) {
            throw new IllegalArgumentException("'" + text + "' is not a TypeID: its suffix has "
                    + suffix.length() + " characters, not " + SUFFIX);
        }
        if (suffix.charAt(0) > '7') {
            throw new IllegalArgumentException("'" + text + "' is not a TypeID: its suffix "
                    + "starts with '" + suffix.charAt(0) + "', above 7, so it holds more than "
                    + "128 bits");
        }
        long hi = 0;
        long lo = 0;
        for (int i = 0; i < SUFFIX; i++) {
            char c = suffix.charAt(i);
            int v = c < 128 ? VALUES[c] : -1;
            if (v < 0) {
                throw new IllegalArgumentException("'" + text + "' is not a TypeID: '" + c
                        + "' at suffix position " + (i + 1) + " is not one of "
                        + new String(ALPHABET));
            }
            // 130 bits, 5 a symbol, the top 2 zero: shift (hi, lo) left by 5, add v.
            hi = hi << 5 | lo >>> 59;
            lo = lo << 5 | v;
        }
        return new TypeId(prefix, new UUID(hi, lo));
    }

    /**
     * Reads a TypeID that must have {@code prefix}: an order's where an order is expected.
     *
     * @throws IllegalArgumentException when it is no TypeID, or one of another type, naming both
     *     prefixes
     */
    public static TypeId parse(String text, String prefix) {
        TypeId id = parse(text);
        TypedId.requireType(text, id.prefix(), prefix);
        return id;
    }

    /** {@code prefix_suffix}, or the suffix alone for an empty prefix. */
    @Override
    public String toString() {
        long hi = uuid.getMostSignificantBits();
        long lo = uuid.getLeastSignificantBits();
        char[] out = new char[SUFFIX];
        for (int i = SUFFIX - 1; i >= 0; i--) {
            out[i] = ALPHABET[(int) (lo & 31)];
            lo = lo >>> 5 | hi << 59;
            hi >>>= 5;
        }
        return prefix.isEmpty() ? new String(out) : prefix + "_" + new String(out);
    }
}

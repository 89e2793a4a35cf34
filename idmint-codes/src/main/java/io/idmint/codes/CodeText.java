package io.idmint.codes;

/**
 * The text side of a code: Crockford base32 symbols and the GF(2⁵) check symbol documented on
 * {@link CodeCodec}. No cryptography here: it writes and reads (key version, 63-bit value).
 */
final class CodeText {

    static final String ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
    /** x⁵ + x² + 1: irreducible, hence primitive, as 31 = 2⁵ - 1 is prime. */
    static final int POLYNOMIAL = 0b100101;
    /** How much of a bad input an error message repeats. */
    private static final int ECHO_LIMIT = 40;

    private static final char[] SYMBOLS = ALPHABET.toCharArray();
    /** Symbol value by ASCII code, -1 for none; lower case and the aliases O, I, L included. */
    private static final byte[] VALUES = new byte[128];

    static {
        java.util.Arrays.fill(VALUES, (byte) -1);
        for (int v = 0; v < SYMBOLS.length; v++) {
            VALUES[SYMBOLS[v]] = (byte) v;
            VALUES[Character.toLowerCase(SYMBOLS[v])] = (byte) v;
        }
        for (char c : new char[] {'O', 'o'}) {
            VALUES[c] = 0;
        }
        for (char c : new char[] {'I', 'i', 'L', 'l'}) {
            VALUES[c] = 1;
        }
    }

    /** A code read from text: its key version and its (encrypted) 63-bit value. */
    record Parsed(int version, long value) {
    }

    private CodeText() {
    }

    /** Value symbols of a code over {@code bits}-bit values: 13 for 63 bits. */
    static int valueSymbols(int bits) {
        return (bits + 4) / 5;
    }

    /** Symbols of a code over {@code bits}-bit values, separators aside: 15 for 63 bits. */
    static int length(int bits) {
        return valueSymbols(bits) + 2;
    }

    /** The code's text: 15 symbols, or three groups of five joined by hyphens. */
    static String format(int version, long value, boolean grouped) {
        return format(Ff1.BITS, version, value, grouped);
    }

    /**
     * The text of a code over {@code bits}-bit values: the version, the value's symbols and the
     * check symbol; grouped, a hyphen after every five.
     */
    static String format(int bits, int version, long value, boolean grouped) {
        int n = length(bits);
        int values = n - 2;
        int[] v = new int[n];
        v[0] = version;
        for (int i = 1; i <= values; i++) {
            v[i] = (int) (value >>> (5 * (values - i))) & 31;
        }
        v[n - 1] = timesAlpha(horner(v, n - 1));
        char[] out = new char[grouped ? n + (n - 1) / 5 : n];
        int at = 0;
        for (int i = 0; i < n; i++) {
            if (grouped && i > 0 && i % 5 == 0) {
                out[at++] = '-';
            }
            out[at++] = SYMBOLS[v[i]];
        }
        return new String(out);
    }

    /** As {@link #parse(int, String)} for codes of 63-bit values. */
    static Parsed parse(String code) {
        return parse(Ff1.BITS, code);
    }

    /**
     * Reads a code over {@code bits}-bit values, checking in this order: symbols, count, check
     * symbol, range.
     *
     * @throws IllegalArgumentException naming the input and the first problem found
     */
    static Parsed parse(int bits, String code) {
        int n = length(bits);
        if (code == null || code.isEmpty()) {
            throw new IllegalArgumentException("empty code '': a code has " + n
                    + " Crockford base32 symbols");
        }
        int[] v = new int[n];
        int count = read(code, v);
        if (count < 0) {
            int i = -count - 1;
            throw new IllegalArgumentException("code '" + echo(code) + "': '" + code.charAt(i)
                    + "' at position " + (i + 1) + " is not a Crockford base32 symbol (0-9 and "
                    + "A-Z without I L O U; O reads as 0, I and L as 1)");
        }
        if (count != n) {
            throw new IllegalArgumentException("code '" + echo(code) + "' has " + count
                    + " symbols; a code has " + n + " (hyphens and spaces aside)");
        }
        if (horner(v, n) != 0) {
            throw new IllegalArgumentException("code '" + echo(code) + "' fails its check "
                    + "symbol: a symbol is mistyped or two are swapped");
        }
        int topBits = bits - 5 * (n - 3);
        if (v[1] >= 1 << topBits) {
            throw new IllegalArgumentException("code '" + echo(code) + "' is out of range: its "
                    + "second symbol must be 0-" + SYMBOLS[(1 << topBits) - 1] + " (the value has "
                    + bits + " bits), got '" + SYMBOLS[v[1]] + "'");
        }
        long value = 0;
        for (int i = 1; i <= n - 2; i++) {
            value = (value << 5) | v[i];
        }
        return new Parsed(v[0], value);
    }

    /** Whether {@code code} is 15 symbols whose check symbol matches: the checks of parse. */
    static boolean passesCheck(String code) {
        int[] v = new int[CodeCodec.LENGTH];
        return read(code, v) == CodeCodec.LENGTH && horner(v, CodeCodec.LENGTH) == 0;
    }

    /**
     * Reads symbol values into {@code out} (as many as fit), skipping hyphens and spaces.
     *
     * @return how many symbols there are, or {@code -(i + 1)} when {@code code.charAt(i)} is none
     */
    private static int read(String code, int[] out) {
        int count = 0;
        for (int i = 0; i < code.length(); i++) {
            char c = code.charAt(i);
            if (c == '-' || c == ' ') {
                continue;
            }
            int v = c < 128 ? VALUES[c] : -1;
            if (v < 0) {
                return -(i + 1);
            }
            if (count < out.length) {
                out[count] = v;
            }
            count++;
        }
        return count;
    }

    /** {@code Σ v[i]·α^(n-1-i)} over GF(2⁵), by Horner's rule. */
    static int horner(int[] v, int n) {
        int sum = 0;
        for (int i = 0; i < n; i++) {
            sum = timesAlpha(sum) ^ v[i];
        }
        return sum;
    }

    /** Multiplies by α = x in GF(2⁵) modulo {@link #POLYNOMIAL}. */
    static int timesAlpha(int v) {
        int w = v << 1;
        return (w & 32) != 0 ? w ^ POLYNOMIAL : w;
    }

    /** The input as error messages repeat it: cut short, as it may come from a URL. */
    static String echo(String code) {
        return code.length() <= ECHO_LIMIT ? code : code.substring(0, ECHO_LIMIT) + "...";
    }
}

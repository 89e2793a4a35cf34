package io.idmint.formats;

/** Fixed-width lowercase hex, and the strict reading of it the parsers share. */
final class Hex {

    private static final char[] DIGITS = "0123456789abcdef".toCharArray();

    private Hex() {
    }

    /** Writes the low {@code digits} hex digits of {@code value} into {@code out[at..)}. */
    static void write(char[] out, int at, long value, int digits) {
        for (int i = digits - 1; i >= 0; i--) {
            out[at + i] = DIGITS[(int) (value & 15)];
            value >>>= 4;
        }
    }

    /** Reads {@code digits} hex digits from {@code text[at..)}, checked by {@link #require}. */
    static long read(String text, int at, int digits) {
        long v = 0;
        for (int i = 0; i < digits; i++) {
            v = (v << 4) | Character.digit(text.charAt(at + i), 16);
        }
        return v;
    }

    /**
     * Checks that {@code text} is exactly {@code length} hex digits, either case.
     *
     * @throws IllegalArgumentException naming the input, what it should be and what is wrong
     */
    static void require(String text, int length, String what) {
        if (text == null || text.length() != length) {
            throw new IllegalArgumentException("'" + echo(text) + "' is not " + what + ": expected "
                    + length + " hex digits, got " + (text == null ? 0 : text.length())
                    + " characters");
        }
        for (int i = 0; i < length; i++) {
            char c = text.charAt(i);
            if (!isDigit(c)) {
                throw new IllegalArgumentException("'" + echo(text) + "' is not " + what + ": '" + c
                        + "' at position " + (i + 1) + " is not a hex digit");
            }
        }
    }

    /** An ASCII hex digit, either case. */
    static boolean isDigit(char c) {
        return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
    }

    /** The input as messages repeat it: cut short, as it may come from a URL. */
    static String echo(String text) {
        if (text == null) {
            return "";
        }
        return text.length() <= 48 ? text : text.substring(0, 48) + "...";
    }
}

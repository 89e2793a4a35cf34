package io.idmint;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Text forms of an ID. Every form round-trips every positive {@code long}; parsing rejects
 * anything else with a message naming the input, except that IDs of an unsigned 64-bit layout
 * are read over the whole unsigned range ({@link #parse(String, Layout)}).
 */
public enum IdCodec {

    /** Base 10, as JSON carries IDs (in a string). */
    DECIMAL {
        @Override
        public String format(long id) {
            return Long.toString(checkPositive(id));
        }

        @Override
        long read(String text, boolean unsigned) {
            String s = requireText(text, "a decimal");
            int digits = unsigned ? 20 : 19;
            if (s.length() > digits || !s.chars().allMatch(c -> c >= '0' && c <= '9')) {
                throw new IllegalArgumentException("'" + text + "' is not a decimal ID: expected "
                        + "1 to " + digits + " digits 0-9");
            }
            try {
                return unsigned ? Long.parseUnsignedLong(s) : Long.parseLong(s);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("'" + text + "' is not a decimal ID: larger "
                        + "than the largest ID, " + (unsigned ? Long.toUnsignedString(-1)
                                : Long.MAX_VALUE));
            }
        }
    },

    /**
     * 16 lowercase hex digits; parsing accepts an optional {@code 0x}, either case, 1 to 16
     * digits.
     */
    HEX {
        @Override
        public String format(long id) {
            String hex = Long.toHexString(checkPositive(id));
            return "0".repeat(16 - hex.length()) + hex;
        }

        @Override
        long read(String text, boolean unsigned) {
            String s = requireText(text, "a hex");
            if (s.startsWith("0x") || s.startsWith("0X")) {
                s = s.substring(2);
            }
            if (s.isEmpty() || s.length() > 16 || !s.chars().allMatch(IdCodec::isHexDigit)) {
                throw new IllegalArgumentException("'" + text + "' is not a hex ID: expected 1 to "
                        + "16 hex digits, optionally after 0x");
            }
            long id = Long.parseUnsignedLong(s, 16);
            if (id < 0 && !unsigned) {
                throw new IllegalArgumentException("'" + text + "' is not an ID: above "
                        + "0x7fffffffffffffff, the largest positive long");
            }
            return id;
        }
    },

    /**
     * Crockford base32, always 13 symbols, uppercase. Parsing is case-insensitive and reads
     * {@code O} as 0 and {@code I}/{@code L} as 1; {@code U} and other symbols are rejected.
     */
    BASE32 {
        @Override
        public String format(long id) {
            checkPositive(id);
            char[] out = new char[BASE32_LENGTH];
            for (int i = BASE32_LENGTH - 1; i >= 0; i--) {
                out[i] = CROCKFORD.charAt((int) (id & 31));
                id >>>= 5;
            }
            return new String(out);
        }

        @Override
        long read(String text, boolean unsigned) {
            String s = requireText(text, "a base32");
            if (s.length() != BASE32_LENGTH) {
                throw new IllegalArgumentException("'" + text + "' is not a base32 ID: expected "
                        + BASE32_LENGTH + " Crockford base32 symbols, got " + s.length());
            }
            long id = 0;
            for (int i = 0; i < BASE32_LENGTH; i++) {
                int v = crockfordValue(s.charAt(i));
                if (v < 0) {
                    throw new IllegalArgumentException("'" + text + "' is not a base32 ID: '"
                            + s.charAt(i) + "' at position " + (i + 1) + " is not a Crockford "
                            + "base32 symbol (0-9, A-Z without I L O U)");
                }
                if (i == 0 && v > (unsigned ? 15 : 7)) {
                    throw new IllegalArgumentException("'" + text + "' is not an ID: the first "
                            + "symbol must be " + (unsigned ? "0-F, or the value overflows 64 bits"
                                    : "0-7, or the value overflows a positive 64-bit long"));
                }
                id = (id << 5) | v;
            }
            return id;
        }
    };

    static final int BASE32_LENGTH = 13;
    private static final String CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

    /** The ID in this form. @throws IllegalArgumentException for a negative value */
    public abstract String format(long id);

    /** The ID this text stands for. @throws IllegalArgumentException naming the bad input */
    public long parse(String text) {
        return read(text, false);
    }

    /**
     * As {@link #parse}, reading the text for {@code layout}: for an {@link Layout#unsigned()}
     * layout the whole unsigned 64-bit range is allowed (up to 18446744073709551615), and values
     * above {@link Long#MAX_VALUE} come back as the negative {@code long} with the same bits.
     */
    public long parse(String text, Layout layout) {
        return read(text, layout.unsigned());
    }

    abstract long read(String text, boolean unsigned);

    /**
     * Reads an ID in any form it is written in: decimal digits, hex ({@code 0x} and 1 to 16 hex
     * digits, or exactly 16 hex digits: the {@link #HEX} form), 13 base32 symbols, or a typed ID
     * ({@link TypedId}: {@code ord_} + 13 lowercase base32 symbols). Text valid in
     * two forms is refused naming both readings, never guessed: {@code 0400000000005} (decimal or
     * base32), {@code 1000000000000000} (decimal or hex), {@code 0x12345678901} (hex or base32,
     * whose {@code x} is a symbol). {@link #parse} in one form reads it.
     *
     * @throws IllegalArgumentException naming the input: not an ID, or valid in two forms
     */
    public static long parseAny(String text) {
        return parseAny(text, 63);
    }

    /**
     * As {@link #parseAny(String)}, counting only the readings that are IDs of {@code layout}
     * (below 2<sup>{@link Layout#totalBits()}</sup>): a 16-digit js-safe ID is decimal, as its
     * hex reading is too large to be one.
     */
    public static long parseAny(String text, Layout layout) {
        return parseAny(text, layout.totalBits());
    }

    private static long parseAny(String text, int bits) {
        String s = requireText(text, "an");
        if (s.indexOf('_') >= 0) {
            return TypedId.parse(s).id(); // a typed ID: its type prefix does not change it
        }
        List<IdCodec> forms = new ArrayList<>(2);
        List<Long> ids = new ArrayList<>(2);
        IllegalArgumentException refused = null;
        long tooLarge = -1;
        for (IdCodec form : values()) {
            if (form.writes(s)) {
                try {
                    long id = form.read(s, bits == 64);
                    if (bits >= 63 || id >>> bits == 0) {
                        ids.add(id);
                        forms.add(form);
                    } else if (tooLarge < 0) {
                        tooLarge = id;
                    }
                } catch (IllegalArgumentException e) {
                    refused = refused == null ? e : refused;
                }
            }
        }
        if (forms.size() == 1 || forms.isEmpty() && tooLarge >= 0) {
            return forms.isEmpty() ? tooLarge : ids.get(0); // the layout names what is too large
        }
        if (forms.size() > 1) {
            StringBuilder readings = new StringBuilder();
            StringBuilder names = new StringBuilder();
            for (int i = 0; i < forms.size(); i++) {
                readings.append(i == 0 ? "" : " and ").append("as ")
                        .append(forms.get(i).lowerName()).append(" ID ")
                        .append(Long.toUnsignedString(ids.get(i)));
                names.append(i == 0 ? "" : " or ").append(forms.get(i).lowerName());
            }
            throw new IllegalArgumentException("'" + text + "' is ambiguous: it reads " + readings
                    + "; give its format (" + names + ") to choose");
        }
        throw refused != null ? refused : new IllegalArgumentException("'" + text + "' is not an "
                + "ID: expected decimal digits, 16 hex digits (optionally after 0x) or "
                + BASE32_LENGTH + " Crockford base32 symbols");
    }

    /** Whether {@code s} looks like this form: its length, its prefix or its symbols. */
    private boolean writes(String s) {
        return switch (this) {
            case DECIMAL -> s.chars().allMatch(c -> c >= '0' && c <= '9');
            case HEX -> s.startsWith("0x") || s.startsWith("0X")
                    || s.length() == 16 && s.chars().allMatch(IdCodec::isHexDigit);
            case BASE32 -> s.length() == BASE32_LENGTH;
        };
    }

    /** The codec named {@code decimal}, {@code hex} or {@code base32}, in any case. */
    public static IdCodec named(String name) {
        for (IdCodec c : values()) {
            if (c.name().equalsIgnoreCase(name)) {
                return c;
            }
        }
        throw new IllegalArgumentException("unknown ID format '" + name
                + "'; formats are decimal, hex, base32");
    }

    public String lowerName() {
        return name().toLowerCase(Locale.ROOT);
    }

    private static String requireText(String text, String what) {
        if (text == null || text.isEmpty()) {
            throw new IllegalArgumentException("empty input '' is not " + what + " ID");
        }
        return text;
    }

    private static long checkPositive(long id) {
        if (id < 0) {
            throw new IllegalArgumentException("ID " + id
                    + " is negative; idmint IDs are positive");
        }
        return id;
    }

    private static boolean isHexDigit(int c) {
        return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
    }

    private static int crockfordValue(char c) {
        char u = Character.toUpperCase(c);
        return switch (u) {
            case 'O' -> 0;
            case 'I', 'L' -> 1;
            case 'U' -> -1;
            default -> u < 128 ? CROCKFORD.indexOf(u) : -1;
        };
    }
}

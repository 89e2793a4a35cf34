package io.idmint.segment;

import java.time.LocalDate;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A serial's template, compiled: literal text, the period's date, the counter and a check
 * symbol (fields in {@link SerialDefinition}). {@link #render} fixes the date for one period, so
 * that writing a value is appending a few strings and a number.
 */
final class SerialTemplate {

    /** ISO/IEC 7064 MOD 37,36: its symbols, value 0 to 35. */
    private static final String SYMBOLS = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";
    private static final int MAX_WIDTH = 18;

    /** One part of a template. */
    private sealed interface Part {
    }

    private record Literal(String text) implements Part {
    }

    private record Date(DateTimeFormatter format) implements Part {
    }

    private record Counter(Integer width) implements Part {
    }

    /** The counter as its public code over {@code bits} bits: made by the serial's codec. */
    private record Code(int bits) implements Part {
    }

    private record Check() implements Part {
    }

    private final List<Part> parts;
    private final Integer width;
    private final Integer codeBits;

    private SerialTemplate(List<Part> parts, Integer width, Integer codeBits) {
        this.parts = List.copyOf(parts);
        this.width = width;
        this.codeBits = codeBits;
    }

    /** @throws IllegalArgumentException naming the field or character that is wrong */
    static SerialTemplate compile(String name, String template, SerialPeriod period,
            boolean checkPeriods) {
        String where = "serial '" + name + "': template '" + template + "'";
        List<Part> parts = new ArrayList<>();
        StringBuilder literal = new StringBuilder();
        int counters = 0;
        int checks = 0;
        Integer width = null;
        Integer codeBits = null;
        for (int i = 0; i < template.length(); i++) {
            char c = template.charAt(i);
            if (c == '}') {
                if (i + 1 < template.length() && template.charAt(i + 1) == '}') {
                    literal.append('}');
                    i++;
                    continue;
                }
                throw new IllegalArgumentException(where + ": a lone '}' at " + (i + 1)
                        + " (write }} for a brace)");
            }
            if (c != '{') {
                literal.append(c);
                continue;
            }
            if (i + 1 < template.length() && template.charAt(i + 1) == '{') {
                literal.append('{');
                i++;
                continue;
            }
            int end = template.indexOf('}', i);
            if (end < 0) {
                throw new IllegalArgumentException(where + ": the field at " + (i + 1)
                        + " has no closing '}'");
            }
            String field = template.substring(i + 1, end);
            if (literal.length() > 0) {
                parts.add(new Literal(literal.toString()));
                literal.setLength(0);
            }
            if (field.startsWith("date:")) {
                if (period == SerialPeriod.NONE) {
                    throw new IllegalArgumentException(where + ": {" + field + "}: a serial "
                            + "with period none has no period date; choose year, month, week "
                            + "or day");
                }
                parts.add(new Date(pattern(where, field.substring(5))));
            } else if (field.equals("counter") || field.startsWith("counter:")) {
                counters++;
                if (field.length() > 7) {
                    width = width(where, field.substring(8));
                }
                parts.add(new Counter(width));
            } else if (field.startsWith("code:")) {
                counters++;
                codeBits = codeBits(where, field.substring(5));
                parts.add(new Code(codeBits));
            } else if (field.equals("check")) {
                checks++;
                parts.add(new Check());
            } else {
                throw new IllegalArgumentException(where + ": unknown field {" + field + "}; "
                        + "fields are {date:PATTERN}, {counter}, {counter:N}, {code:BITS} and "
                        + "{check}");
            }
            i = end;
        }
        if (literal.length() > 0) {
            parts.add(new Literal(literal.toString()));
        }
        if (counters != 1) {
            throw new IllegalArgumentException(where + " has " + counters + " {counter} or "
                    + "{code} fields; a serial's template has exactly one");
        }
        if (checks > 1) {
            throw new IllegalArgumentException(where + " has " + checks + " {check} fields; "
                    + "at most one");
        }
        SerialTemplate t = new SerialTemplate(parts, width, codeBits);
        t.requireDistinctPeriods(where, period, checkPeriods);
        return t;
    }

    /** Periods checked for distinct dates: a century of them. */
    private static final int CENTURY_YEARS = 101;

    /**
     * Refuses a periodic template whose text would repeat: a counter that starts again needs a
     * date, and (with {@code century}) one that tells its periods apart ({@code yyyyMMdd} for
     * days, not {@code MMdd}), checked over the periods of a century from 2026.
     */
    private void requireDistinctPeriods(String where, SerialPeriod period, boolean century) {
        if (period == SerialPeriod.NONE) {
            return;
        }
        List<Date> dates = parts.stream().filter(Date.class::isInstance).map(Date.class::cast)
                .toList();
        if (dates.isEmpty()) {
            throw new IllegalArgumentException(where + ": a counter that starts again each "
                    + period.key() + " repeats its values unless the template has a "
                    + "{date:PATTERN} that tells the " + period.key() + "s apart");
        }
        if (!century) {
            return;
        }
        java.util.Map<String, LocalDate> seen = new java.util.HashMap<>();
        LocalDate start = period.start(LocalDate.of(2026, 1, 1));
        LocalDate stop = start.plusYears(CENTURY_YEARS);
        for (LocalDate d = start; d.isBefore(stop); d = period.next(d)) {
            StringBuilder key = new StringBuilder();
            for (Date date : dates) {
                key.append(date.format().format(d)).append('\u0000');
            }
            LocalDate earlier = seen.putIfAbsent(key.toString(), d);
            if (earlier != null) {
                throw new IllegalArgumentException(where + ": its date fields write the "
                        + period.key() + "s from " + earlier + " and " + d + " alike, so their "
                        + "values would repeat; use a pattern that tells every " + period.key()
                        + " apart (for example yyyyMMdd)");
            }
        }
    }

    private static DateTimeFormatter pattern(String where, String pattern) {
        try {
            // Locale.UK: English names, and ISO weeks (Monday first, week 1 holds 4 January) for
            // the week fields Y and w; Locale.ROOT's weeks are not ISO's.
            DateTimeFormatter f = DateTimeFormatter.ofPattern(pattern, Locale.UK);
            f.format(LocalDate.of(2026, 1, 1));
            return f;
        } catch (IllegalArgumentException | java.time.DateTimeException e) {
            throw new IllegalArgumentException(where + ": date pattern '" + pattern + "' is "
                    + "not one for a date (" + e.getMessage() + "); for example yyyyMMdd", e);
        }
    }

    private static int width(String where, String digits) {
        try {
            int n = Integer.parseInt(digits);
            if (n >= 1 && n <= MAX_WIDTH) {
                return n;
            }
        } catch (NumberFormatException e) {
            // below
        }
        throw new IllegalArgumentException(where + ": counter width '" + digits + "' must be "
                + "1 to " + MAX_WIDTH);
    }

    /** The counter's width, or null when it is written as it is (or as a code). */
    Integer width() {
        return width;
    }

    /** The bits of the counter's code ({@code {code:BITS}}), or null when it has none. */
    Integer codeBits() {
        return codeBits;
    }

    private static int codeBits(String where, String digits) {
        try {
            int n = Integer.parseInt(digits);
            if (n >= MIN_CODE_BITS && n <= 63) {
                return n;
            }
        } catch (NumberFormatException e) {
            // below
        }
        throw new IllegalArgumentException(where + ": code bits '" + digits + "' must be "
                + MIN_CODE_BITS + " to 63 (FF1 wants a domain of at least a million values)");
    }

    /** The fewest bits of a {@code {code:BITS}}: a million values, as FF1 asks. */
    static final int MIN_CODE_BITS = 20;

    /**
     * The template with the period's date written: what {@link Rendered#write} fills in.
     *
     * @param code the counter's code for a {@code {code:BITS}} field, else unused (null)
     */
    Rendered render(LocalDate periodStart, java.util.function.LongFunction<String> code) {
        List<Object> fixed = new ArrayList<>();
        StringBuilder text = new StringBuilder();
        for (Part p : parts) {
            if (p instanceof Literal l) {
                text.append(l.text());
            } else if (p instanceof Date d) {
                text.append(d.format().format(periodStart));
            } else {
                fixed.add(text.toString());
                text.setLength(0);
                fixed.add(p);
            }
        }
        fixed.add(text.toString());
        return new Rendered(fixed, width == null ? 0 : width, code);
    }

    /**
     * A template for one period: its fixed text as char arrays, each with the check's state
     * transition over it (a table of the 37 states), so that writing a value copies the text,
     * writes the counter's digits and steps the check over those digits only.
     */
    static final class Rendered {

        private static final int TEXT = 0;
        private static final int COUNTER = 1;
        private static final int CHECK = 2;
        private static final int CODE = 3;
        private static final int MAX_DIGITS = 19;

        private final int[] kinds;
        private final char[][] texts;
        private final int[][] transitions;
        private final int width;
        private final int maxLength;
        /** Whether a check symbol is written: only then is the check's state kept. */
        private final boolean checked;
        private final java.util.function.LongFunction<String> code;

        private Rendered(List<Object> pieces, int width,
                java.util.function.LongFunction<String> code) {
            this.code = code;
            this.kinds = new int[pieces.size()];
            this.texts = new char[pieces.size()][];
            this.transitions = new int[pieces.size()][];
            this.width = width;
            int length = 0;
            for (int i = 0; i < pieces.size(); i++) {
                Object piece = pieces.get(i);
                if (piece instanceof String s) {
                    kinds[i] = TEXT;
                    texts[i] = s.toCharArray();
                    transitions[i] = transition(s);
                    length += s.length();
                } else if (piece instanceof Counter) {
                    kinds[i] = COUNTER;
                    length += Math.max(width, MAX_DIGITS);
                } else if (piece instanceof Code c) {
                    kinds[i] = CODE;
                    length += 2 + (c.bits() + 4) / 5;
                } else {
                    kinds[i] = CHECK;
                    length++;
                }
            }
            this.maxLength = length;
            boolean check = false;
            for (int k : kinds) {
                check |= k == CHECK;
            }
            this.checked = check;
        }

        /** The check's state after {@code text}, for each state before it. */
        private static int[] transition(String text) {
            int[] t = new int[37];
            for (int start = 0; start < 37; start++) {
                int p = start;
                for (int i = 0; i < text.length(); i++) {
                    int v = value(text.charAt(i));
                    if (v >= 0) {
                        p = step(p, v);
                    }
                }
                t[start] = p;
            }
            return t;
        }

        /** The value {@code counter} as text. */
        String write(long counter) {
            char[] buf = new char[maxLength];
            int n = 0;
            int p = 36;
            for (int i = 0; i < kinds.length; i++) {
                switch (kinds[i]) {
                    case TEXT -> {
                        char[] t = texts[i];
                        System.arraycopy(t, 0, buf, n, t.length);
                        n += t.length;
                        if (checked) {
                            p = transitions[i][p];
                        }
                    }
                    case COUNTER -> {
                        String digits = Long.toString(counter);
                        for (int z = digits.length(); z < width; z++) {
                            buf[n++] = '0';
                            if (checked) {
                                p = step(p, 0);
                            }
                        }
                        digits.getChars(0, digits.length(), buf, n);
                        if (checked) {
                            for (int d = 0; d < digits.length(); d++) {
                                p = step(p, digits.charAt(d) - '0');
                            }
                        }
                        n += digits.length();
                    }
                    case CODE -> {
                        String text = code.apply(counter);
                        text.getChars(0, text.length(), buf, n);
                        if (checked) {
                            for (int d = 0; d < text.length(); d++) {
                                int v = value(text.charAt(d));
                                if (v >= 0) {
                                    p = step(p, v);
                                }
                            }
                        }
                        n += text.length();
                    }
                    default -> {
                        int v = ((1 - p) % 36 + 36) % 36;
                        buf[n++] = SYMBOLS.charAt(v);
                        p = step(p, v);
                    }
                }
            }
            return new String(buf, 0, n);
        }
    }

    /*
     * The check symbol is ISO/IEC 7064 MOD 37,36 over the letters and digits written before it
     * (other characters skipped, letters read without case): it catches every single wrong
     * symbol and nearly every swap of two neighbours. Rendered keeps its running state and the
     * check symbol makes the final state 1; SerialsTest checks values against the standard's
     * own validation, written there.
     */

    /** The check's next state, by state (1 to 36) and symbol value (0 to 35). */
    private static final int[][] STEPS = new int[37][36];

    static {
        for (int p = 0; p < 37; p++) {
            for (int v = 0; v < 36; v++) {
                int s = (p + v) % 36;
                STEPS[p][v] = ((s == 0 ? 36 : s) * 2) % 37;
            }
        }
    }

    private static int step(int p, int v) {
        return STEPS[p][v];
    }

    private static int value(char c) {
        if (c >= '0' && c <= '9') {
            return c - '0';
        }
        if (c >= 'A' && c <= 'Z') {
            return c - 'A' + 10;
        }
        if (c >= 'a' && c <= 'z') {
            return c - 'a' + 10;
        }
        return -1;
    }
}

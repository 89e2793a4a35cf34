package io.idmint.spi.support;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Durations as idmint's configuration and backend URIs write them: a whole number and a unit,
 * {@code ms}, {@code s}, {@code m} or {@code h} ({@code 500ms}, {@code 2s}, {@code 1m}). One
 * parser, so every backend reads {@code timeout=…} the same way.
 */
public final class Durations {

    private static final Pattern DURATION = Pattern.compile("(\\d{1,12})(ms|s|m|h)");

    private Durations() {
    }

    /**
     * Parses {@code text} (surrounding blanks ignored; units in lower case).
     *
     * @throws IllegalArgumentException naming the text when it is not a duration
     */
    public static Duration parse(String text) {
        Matcher m = DURATION.matcher(text == null ? "" : text.trim());
        if (!m.matches()) {
            throw new IllegalArgumentException("'" + text + "' is not a duration: write a whole "
                    + "number and a unit (ms, s, m, h), such as 500ms, 2s or 1m");
        }
        long n = Long.parseLong(m.group(1));
        return switch (m.group(2)) {
            case "ms" -> Duration.ofMillis(n);
            case "s" -> Duration.ofSeconds(n);
            case "m" -> Duration.ofMinutes(n);
            default -> Duration.ofHours(n);
        };
    }

    /**
     * Parses {@code text} and checks it lies in {@code [min, max]}.
     *
     * @throws IllegalArgumentException naming the text and the bounds
     */
    public static Duration parse(String text, Duration min, Duration max) {
        Duration d = parse(text);
        if (d.compareTo(min) < 0 || d.compareTo(max) > 0) {
            throw new IllegalArgumentException("'" + text.trim() + "' must be between "
                    + format(min) + " and " + format(max));
        }
        return d;
    }

    /**
     * The {@link System#nanoTime()} deadline {@code d} after {@code nowNanos}, to be compared by
     * subtraction ({@code deadline - System.nanoTime() > 0}), as nanoTime values must be. It
     * saturates rather than throws: {@link Duration#toNanos()} overflows past 292 years, and a
     * wait that long is capped at half of that, which subtraction still orders right.
     */
    public static long deadlineNanos(long nowNanos, Duration d) {
        long cap = Long.MAX_VALUE / 2;
        return nowNanos + Math.max(-cap, Math.min(cap, TimeUnit.NANOSECONDS.convert(d)));
    }

    /**
     * The shortest text {@link #parse} reads back, as users write it: {@code 250ms}, {@code 1s},
     * {@code 1m}, {@code 1h}. Every message that shows a duration uses it (never {@code PT1H}).
     */
    public static String format(Duration d) {
        long ms = d.toMillis();
        if (ms % 3_600_000 == 0 && ms > 0) {
            return ms / 3_600_000 + "h";
        }
        if (ms % 60_000 == 0 && ms > 0) {
            return ms / 60_000 + "m";
        }
        return ms % 1000 == 0 && ms > 0 ? ms / 1000 + "s" : ms + "ms";
    }
}

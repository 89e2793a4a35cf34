package io.idmint.spi.support;

import java.time.Duration;

/**
 * The argument checks idmint's builders and backends share (Caffeine's {@code requireArgument} /
 * {@code requireState}): a bad value fails at once with a message naming it.
 */
public final class Checks {

    private Checks() {
    }

    /**
     * An option may be set once: a second call is a bug in the caller's setup.
     *
     * @throws IllegalStateException naming the option when {@code current} is not null
     */
    public static void requireUnset(Object current, String name) {
        if (current != null) {
            throw new IllegalStateException(name + " was already set");
        }
    }

    /** @throws IllegalArgumentException with {@code message} unless {@code ok} */
    public static void requireArgument(boolean ok, String message) {
        if (!ok) {
            throw new IllegalArgumentException(message);
        }
    }

    /** @throws IllegalArgumentException naming {@code key} unless {@code d} is at most max */
    public static void requireAtMost(Duration d, Duration max, String key) {
        requireArgument(d.compareTo(max) <= 0, key + " must be at most " + Durations.format(max)
                + ", got " + Durations.format(d));
    }

    /** @throws IllegalArgumentException naming {@code key} unless {@code d} is above zero */
    public static void requirePositive(Duration d, String key) {
        requireArgument(d != null && !d.isNegative() && !d.isZero(), key + " must be positive, got "
                + (d == null ? "nothing" : Durations.format(d)));
    }
}

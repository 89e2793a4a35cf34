package io.idmint;

import io.idmint.spi.Durations;
import java.time.Duration;

/** The builders' argument checks (Caffeine's {@code requireArgument} / {@code requireState}). */
final class Checks {

    private Checks() {
    }

    /** An option may be set once: a second call is a bug in the caller's setup. */
    static void requireUnset(Object current, String name) {
        if (current != null) {
            throw new IllegalStateException(name + " was already set");
        }
    }

    static void requireArgument(boolean ok, String message) {
        if (!ok) {
            throw new IllegalArgumentException(message);
        }
    }

    static void requirePositive(Duration d, String key) {
        requireArgument(d != null && !d.isNegative() && !d.isZero(), key + " must be positive, got "
                + (d == null ? "nothing" : Durations.format(d)));
    }
}

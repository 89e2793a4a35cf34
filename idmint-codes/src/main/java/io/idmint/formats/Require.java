package io.idmint.formats;

import io.idmint.IdUnavailableException;
import io.idmint.IdUnavailableException.Reason;
import io.idmint.TimeSource;
import java.time.Duration;

/** Checks the builders and generators of this package share. */
final class Require {

    private Require() {
    }

    static void unset(Object current, String name) {
        if (current != null) {
            throw new IllegalStateException(name + " was already set");
        }
    }

    static void argument(boolean ok, String message) {
        if (!ok) {
            throw new IllegalArgumentException(message);
        }
    }

    /** Waits for the clock; an interrupt becomes {@link Reason#INTERRUPTED}, flag restored. */
    static void awaitMillis(TimeSource time, long unixMillis, String format) {
        try {
            time.awaitMillis(unixMillis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IdUnavailableException(Reason.INTERRUPTED, format + " generator interrupted "
                    + "while waiting for the clock to reach " + unixMillis, Duration.ZERO);
        }
    }

    static IdUnavailableException timeOutOfRange(String format, long value, String range) {
        return new IdUnavailableException(Reason.TIME_EXHAUSTED, format + " generator: the clock "
                + "reads " + value + ", outside the format's time range " + range, Duration.ZERO);
    }
}

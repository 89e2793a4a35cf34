package io.idmint.formats;

import io.idmint.IdUnavailableException;
import io.idmint.IdUnavailableException.Reason;
import io.idmint.TimeSource;
import java.time.Duration;

/**
 * What this package's generators do when the clock is in the way: wait for it, or refuse a time
 * outside the format's range. (Argument checks are {@link io.idmint.spi.support.Checks}, as in
 * the core.)
 */
final class FormatClock {

    private FormatClock() {
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

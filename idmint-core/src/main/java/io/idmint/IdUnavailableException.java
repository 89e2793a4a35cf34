package io.idmint;

import java.time.Duration;

/**
 * No ID can be issued safely right now. Nothing was issued; the caller may retry after
 * {@link #retryAfter()} (an HTTP server answers 503 with {@code Retry-After}).
 */
public final class IdUnavailableException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** Why no ID could be issued. */
    public enum Reason {
        /** No worker ID is held: still acquiring, lost, or the registry is unreachable. */
        NO_LEASE,
        /** The clock is behind the last issued time by more than the configured wait. */
        CLOCK_BEHIND,
        /**
         * This node's clock is behind the fleet's (the store's own clock, or the high-water marks
         * of the other held workers) by more than {@code clock.max-skew}: no worker is taken
         * until it agrees again.
         */
        CLOCK_BEHIND_FLEET,
        /** As {@link #CLOCK_BEHIND_FLEET}, with this node's clock ahead of the fleet's. */
        CLOCK_AHEAD_OF_FLEET,
        /** The reserved high-water mark is used up and the registry has not extended it. */
        RUNWAY_EXHAUSTED,
        /** The layout's time field has run out; this layout can issue no more IDs. */
        TIME_EXHAUSTED,
        /** The thread was interrupted while waiting for the clock. The interrupt flag is set. */
        INTERRUPTED,
        /** The generator was closed. */
        CLOSED
    }

    private final Reason reason;
    private final Duration retryAfter;

    public IdUnavailableException(Reason reason, String message, Duration retryAfter) {
        super(message);
        this.reason = reason;
        this.retryAfter = retryAfter;
    }

    public Reason reason() {
        return reason;
    }

    /** A hint for when to try again; {@link Duration#ZERO} when retrying will not help. */
    public Duration retryAfter() {
        return retryAfter;
    }
}

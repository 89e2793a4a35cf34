package io.idmint;

/** What a generator does when the clock is behind the last issued time by more than the wait. */
public enum ClockPolicy {
    /**
     * Refuse with {@link IdUnavailableException} ({@link
     * IdUnavailableException.Reason#CLOCK_BEHIND}),
     * release the worker with its final high-water mark, and re-join by itself once the clock has
     * caught up. The default: IDs never carry a time far from the clock.
     */
    FAIL,
    /**
     * Keep issuing on the logical clock (the last issued time, counting the sequence on), within
     * the reserved high-water mark. IDs stay unique; their timestamps run ahead of the clock until
     * it catches up.
     */
    CONTINUE
}

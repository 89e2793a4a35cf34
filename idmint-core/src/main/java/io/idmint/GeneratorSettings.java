package io.idmint;

/**
 * A Snowflake generator's configuration, resolved once by {@link Snowflake#build()} (defaults
 * applied, cross-checks done) and handed, read-only, to both the hot path
 * ({@link SnowflakeGenerator}) and the HWM protocol ({@link HwmLease}).
 *
 * @param layout the bit layout
 * @param time where time is read and waited for
 * @param clockPolicy what to do when the clock is behind by more than {@code maxWaitMillis}
 * @param maxWaitMillis how long a caller waits for a clock that is behind
 * @param maxLeadTicks how many ticks the sequence may borrow ahead of the clock
 * @param sequenceStart where each tick's sequence starts
 * @param windowMillis how far ahead of the clock each HWM reservation reaches
 * @param periodMillis how often the lease is extended while healthy
 * @param storeTimeoutMillis how long IDs may still be issued after the registry was last reached
 * @param maxSkewMillis how far this node's clock may be from the fleet's
 * @param listener hooks for metrics and logs
 */
record GeneratorSettings(Layout layout, TimeSource time, ClockPolicy clockPolicy,
        long maxWaitMillis, long maxLeadTicks, SequenceStart sequenceStart, long windowMillis,
        long periodMillis, long storeTimeoutMillis, long maxSkewMillis,
        GeneratorListener listener) {
}

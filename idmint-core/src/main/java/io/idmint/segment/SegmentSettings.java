package io.idmint.segment;

import io.idmint.TimeSource;
import io.idmint.spi.RangeStore;

/**
 * A segment generator's configuration, resolved once by {@link Segments#build()} (defaults
 * applied, bounds checked) and shared, read-only, by the generator and every tag's buffer.
 *
 * @param store where ranges are leased
 * @param time the clock for step adaptation and fetch timeouts
 * @param steps how the next range's size is chosen
 * @param fetchTimeoutNanos how long a caller waits for a range when both buffers are empty
 * @param autoCreate whether a tag unknown to the store is created on first use
 * @param order how a tag's IDs are ordered across threads
 */
record SegmentSettings(RangeStore store, TimeSource time, StepPolicy steps,
        long fetchTimeoutNanos, boolean autoCreate, SegmentOrder order) {
}

package io.idmint.segment;

/**
 * One tag's counters, as {@link SegmentGenerator#stats()} reads them; for metrics.
 *
 * @param tag the tag
 * @param served IDs handed out so far; in {@link SegmentOrder#RELAXED} order, IDs handed to the
 *     threads' blocks, so it counts block tails that are never issued
 * @param ranges ranges fetched from the store so far
 * @param fetchFailures fetches that failed (store unavailable, unknown tag, …)
 * @param fetchNanos total time spent in successful fetches, for a mean fetch latency
 * @param step the size of the last range fetched; 0 before the first
 * @param remaining IDs left in the range being served
 * @param nextReady whether the next range is already fetched (the second buffer is full)
 */
public record SegmentStats(String tag, long served, long ranges, long fetchFailures,
        long fetchNanos, long step, long remaining, boolean nextReady) {
}

package io.idmint.client;

/**
 * How many IDs the buffer should hold, from the rate callers take them (see docs/client.md,
 * "Buffer and memory"): about {@link #HORIZON_NANOS} of that rate, at least one server batch
 * ({@link #MIN_TARGET}) and at most the buffer's capacity. The rate is measured over windows
 * of at least 10 ms and smoothed, so a burst raises the target within a few windows and an idle
 * client lets it fall back, keeping few IDs (whose timestamps age while they wait) buffered.
 */
final class Demand {

    /** The time the buffer should cover at the measured rate: 100 ms. */
    static final long HORIZON_NANOS = 100_000_000L;
    /** One StreamIds batch: never aim lower. */
    static final int MIN_TARGET = 1000;
    private static final long WINDOW_NANOS = 10_000_000L;

    private final int capacity;
    private long windowStart;
    private long takenAtStart;
    /** IDs per second, smoothed. */
    private double rate;

    Demand(int capacity, long now) {
        this.capacity = capacity;
        this.windowStart = now;
    }

    /** Records that callers had taken {@code taken} IDs in all at {@code now} (nanoTime). */
    void observe(long taken, long now) {
        long elapsed = now - windowStart;
        if (elapsed < WINDOW_NANOS) {
            return;
        }
        double measured = (taken - takenAtStart) * 1e9 / elapsed;
        // Up at once, down gently: a refill that lags a burst costs callers waits.
        rate = measured >= rate ? measured : 0.7 * rate + 0.3 * measured;
        windowStart = now;
        takenAtStart = taken;
    }

    /** The IDs per second observed. */
    double rate() {
        return rate;
    }

    /** How many IDs the buffer should hold now. */
    int target() {
        double want = rate * HORIZON_NANOS / 1e9;
        return (int) Math.max(Math.min(capacity, MIN_TARGET), Math.min(capacity, want));
    }
}

package io.idmint;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;

/**
 * Monotonic time anchored to the wall clock. The anchor is one number, {@code offset} =
 * wall-clock nanoseconds minus {@code System.nanoTime()}, and it only grows, so readings never go
 * back, across threads too ({@code nanoTime} is monotonic across threads on Linux and the offset
 * is read after it).
 */
final class HybridTimeSource implements TimeSource {

    private static final long NANOS_PER_MILLI = 1_000_000L;
    /**
     * The last stretch of a wait that spins. Parking wakes tens of microseconds late (Linux's
     * default timer slack is 50 µs), so a wait parks until this close to the tick and spins the
     * rest: a thread waiting for the next millisecond at the sequence cap then burns about a
     * tenth of a core instead of all of it, and still wakes on the tick (docs/benchmarks.md).
     */
    private static final long SPIN_NANOS = 50_000;

    private final LongSupplier wallClock;
    private final LongSupplier monotonic;
    private final AtomicLong offset;

    HybridTimeSource() {
        this(System::currentTimeMillis, System::nanoTime);
    }

    /** A source over these clocks; {@link TimeSource#system()} passes the system's. */
    HybridTimeSource(LongSupplier wallClock, LongSupplier monotonic) {
        this.wallClock = wallClock;
        this.monotonic = monotonic;
        this.offset = new AtomicLong(
                wallClock.getAsLong() * NANOS_PER_MILLI - monotonic.getAsLong());
    }

    @Override
    public long currentTimeMillis() {
        // Wall clock first: a stall between the two reads then makes the candidate anchor
        // below the true offset, never above it. In the other order a stall of d ms would
        // ratchet this source d ms ahead of the wall clock for the rest of the process.
        long wall = wallClock.getAsLong();
        long nanos = monotonic.getAsLong();
        long mono = (nanos + offset.get()) / NANOS_PER_MILLI;
        if (wall > mono) {
            // The wall clock ran ahead (slewed or stepped forwards): follow it, never back. The
            // anchor only grows, so later readings on any thread are at least this one. Anchors
            // taken just after a millisecond boundary converge on the true offset, so this
            // branch becomes rare and the hot path stays free of shared writes.
            long candidate = wall * NANOS_PER_MILLI - nanos;
            long current = offset.get();
            while (candidate > current && !offset.compareAndSet(current, candidate)) {
                current = offset.get();
            }
            return wall;
        }
        return mono;
    }

    @Override
    public long nanoTime() {
        return monotonic.getAsLong();
    }

    @Override
    public void awaitMillis(long unixMillis) throws InterruptedException {
        for (long now = currentTimeMillis(); now < unixMillis; now = currentTimeMillis()) {
            if (Thread.interrupted()) {
                throw new InterruptedException();
            }
            // The tick comes when nanoTime + offset reaches it; a wall clock that runs ahead
            // meanwhile only raises the offset, which makes the wait end earlier, never later.
            long left = unixMillis * NANOS_PER_MILLI - offset.get() - monotonic.getAsLong();
            if (left > SPIN_NANOS) {
                LockSupport.parkNanos(left - SPIN_NANOS);
            } else {
                Thread.onSpinWait();
            }
        }
    }

    @Override
    public long wallClockOffsetMillis() {
        long wall = wallClock.getAsLong();
        long mono = (monotonic.getAsLong() + offset.get()) / NANOS_PER_MILLI;
        return wall - mono;
    }
}

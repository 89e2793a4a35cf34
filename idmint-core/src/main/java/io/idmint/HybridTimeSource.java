package io.idmint;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Monotonic time anchored to the wall clock. The anchor is one number, {@code offset} =
 * wall-clock nanoseconds minus {@code System.nanoTime()}, and it only grows, so readings never go
 * back, across threads too ({@code nanoTime} is monotonic across threads on Linux and the offset
 * is read after it).
 */
final class HybridTimeSource implements TimeSource {

    private static final long NANOS_PER_MILLI = 1_000_000L;
    /** Waits shorter than this spin: parking overshoots by tens of microseconds or more. */
    private static final long SPIN_MILLIS = 2;

    private final AtomicLong offset;

    HybridTimeSource() {
        this.offset = new AtomicLong(System.currentTimeMillis() * NANOS_PER_MILLI - System.nanoTime());
    }

    @Override
    public long currentTimeMillis() {
        long nanos = System.nanoTime();
        long wall = System.currentTimeMillis();
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
        return System.nanoTime();
    }

    @Override
    public void awaitMillis(long unixMillis) throws InterruptedException {
        for (long now = currentTimeMillis(); now < unixMillis; now = currentTimeMillis()) {
            if (Thread.interrupted()) {
                throw new InterruptedException();
            }
            long left = unixMillis - now;
            if (left > SPIN_MILLIS) {
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(left - SPIN_MILLIS));
            } else {
                Thread.onSpinWait();
            }
        }
    }

    @Override
    public long wallClockOffsetMillis() {
        long mono = (System.nanoTime() + offset.get()) / NANOS_PER_MILLI;
        return System.currentTimeMillis() - mono;
    }
}

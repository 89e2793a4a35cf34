package io.idmint;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;

/**
 * Monotonic time anchored to the wall clock. The anchor is one number, {@code offset} =
 * wall-clock nanoseconds minus {@code System.nanoTime()}, and it only grows, so readings never go
 * back, across threads too ({@code nanoTime} is monotonic across threads on Linux and the offset
 * is read after it).
 *
 * <p>A forward step of the wall clock is followed at once only up to {@code maxForwardStep}
 * (NTP slewing moves far less between two reads). A larger step is held back, readings staying on
 * the monotonic clock and {@link #wallClockOffsetMillis()} reporting the gap, until the fleet
 * clock check confirms it ({@link #confirmForwardStep()}) or, with no fleet to ask, it has
 * persisted for {@link #STEP_PERSIST_MILLIS} (docs/design.md, "Clock checks").
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
    /** How long a held-back forward step must persist, undisputed, to be followed. */
    static final long STEP_PERSIST_MILLIS = 60_000;
    /** {@link #stepSeenNanos} while no forward step is held back. */
    private static final long NONE = Long.MIN_VALUE;

    private final LongSupplier wallClock;
    private final LongSupplier monotonic;
    private final AtomicLong offset;
    private final long maxForwardStepMillis;
    /** When the held-back forward step was first seen or last disputed, or {@link #NONE}. */
    private final AtomicLong stepSeenNanos = new AtomicLong(NONE);
    private volatile boolean stepConfirmed;

    HybridTimeSource(long maxForwardStepMillis) {
        this(System::currentTimeMillis, System::nanoTime, maxForwardStepMillis);
    }

    /**
     * A source over these clocks that follows forward steps of at most
     * {@code maxForwardStepMillis} at once; {@link TimeSource#system()} passes the system's.
     */
    HybridTimeSource(LongSupplier wallClock, LongSupplier monotonic, long maxForwardStepMillis) {
        if (maxForwardStepMillis <= 0) {
            throw new IllegalArgumentException("clock.max-forward-step must be positive, got "
                    + maxForwardStepMillis + " ms");
        }
        this.wallClock = wallClock;
        this.monotonic = monotonic;
        this.maxForwardStepMillis = maxForwardStepMillis;
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
            if (wall - mono > maxForwardStepMillis && !followStep(nanos)) {
                return mono; // a step too large to follow unconfirmed
            }
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

    /**
     * Whether a held-back forward step may now be followed: confirmed by the fleet, or persisted
     * undisputed for {@link #STEP_PERSIST_MILLIS}. The first sighting starts the wait.
     */
    private boolean followStep(long nanos) {
        long seen = stepSeenNanos.get();
        if (seen == NONE) {
            stepSeenNanos.compareAndSet(NONE, nanos);
            return false;
        }
        if (stepConfirmed || nanos - seen >= STEP_PERSIST_MILLIS * NANOS_PER_MILLI) {
            stepConfirmed = false;
            stepSeenNanos.set(NONE);
            return true;
        }
        return false;
    }

    /** The fleet agrees with the wall clock: the next reading follows the held-back step. */
    void confirmForwardStep() {
        stepConfirmed = true;
    }

    /** The fleet disagrees with the wall clock: the held-back step's persistence starts over. */
    void disputeForwardStep() {
        stepConfirmed = false;
        stepSeenNanos.set(monotonic.getAsLong());
    }

    /** The largest forward step followed without confirmation (ms). */
    long maxForwardStepMillis() {
        return maxForwardStepMillis;
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
        long gap = wall - mono;
        if (gap <= maxForwardStepMillis && stepSeenNanos.get() != NONE) {
            // The step went away (set right, or followed): a later one waits afresh.
            stepConfirmed = false;
            stepSeenNanos.set(NONE);
        }
        return gap;
    }
}

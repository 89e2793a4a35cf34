package io.idmint.segment;

import io.idmint.IdUnavailableException;
import io.idmint.IdUnavailableException.Reason;
import io.idmint.TimeSource;
import io.idmint.spi.Range;
import io.idmint.spi.RangeStore;
import io.idmint.spi.RegistryException;
import io.idmint.spi.UnknownTagException;
import io.idmint.spi.support.Durations;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One tag's double buffer, and its IDs in issue order ({@link SegmentOrder#ISSUE}). The hot path
 * is one {@code getAndIncrement} on the current range's cursor and a compare with its end; the
 * lock is taken only to switch ranges and to hand over a fetched one. The ID at 10 % of a range
 * (Leaf's rule, leaving 90 % of it as time to fetch) starts the background fetch of the next
 * range; exactly one caller draws that ID, so exactly one fetch starts per range.
 * {@link RelaxedSequence} draws blocks from the same ranges.
 */
final class TagBuffer implements SegmentSequence {

    /** What a buffer needs of its generator besides the settings. */
    interface Owner {

        /** Whether the generator was closed: callers then fail at once. */
        boolean isClosed();

        /** Runs a fetch on the generator's executor; false when closed or refused. */
        boolean submit(Runnable fetch);

        /** Drops {@code buffer}, whose tag the store does not know, unless a handle holds it. */
        void forget(String tag, TagBuffer buffer);
    }

    /** How often a waiting caller re-reads the injected clock; a poll, not a wait for time. */
    private static final long POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(5);
    /** How often a waiting caller retries a failed fetch, on the injected clock. */
    private static final long RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    private static final Duration RETRY_AFTER = Duration.ofSeconds(1);

    /** Used up from the start: the first call goes to the slow path and fetches. */
    private static final ServedRange EMPTY = new ServedRange(Long.MIN_VALUE, Long.MIN_VALUE);

    private final String tag;
    private final SegmentSettings settings;
    private final Owner owner;
    /** How callers draw IDs: this buffer itself, or blocks per thread. */
    private final SegmentSequence sequence;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    /** Read on every call; written under the lock, to switch ranges or to close. */
    volatile ServedRange current = EMPTY;
    /** Whether a handle holds this buffer, which then stays the tag's (guarded by the map). */
    boolean pinned;
    // guarded by lock
    private ServedRange next;
    private boolean fetching;
    private long lastAttemptNanos;
    private Throwable lastFailure;
    /** The size of the last range fetched; 0 before the first. */
    private long step;
    /** The step stored with the tag, learnt from the first range (which takes it); 0 before. */
    private long tagStep;
    private long lastFetchNanos;
    private long waits;
    private long usedUp;
    private long ranges;
    private long fetchFailures;
    private long fetchNanos;

    TagBuffer(String tag, SegmentSettings settings, Owner owner) {
        this.tag = tag;
        this.settings = settings;
        this.owner = owner;
        this.sequence = settings.order() == SegmentOrder.RELAXED ? new RelaxedSequence(this)
                : this;
    }

    /** The handle callers draw from, in the generator's order. */
    SegmentSequence sequence() {
        return sequence;
    }

    @Override
    public String tag() {
        return tag;
    }

    @Override
    public long next() {
        for (;;) {
            ServedRange s = current;
            long v = s.take(1);
            if (v < s.end) {
                if (v == s.prefetchAt) {
                    prefetch();
                }
                return v;
            }
            advance(s);
        }
    }

    @Override
    public void next(long[] ids, int from, int to) {
        java.util.Objects.checkFromToIndex(from, to, ids.length);
        int at = from;
        while (at < to) {
            ServedRange s = current;
            int want = to - at;
            long v = s.take(want);
            if (v < s.end) {
                long got = Math.min(want, s.end - v);
                for (int i = 0; i < got; i++) {
                    ids[at++] = v + i;
                }
                if (s.startsFetch(v, got)) {
                    prefetch();
                }
            } else {
                advance(s);
            }
        }
    }

    /** Starts the fetch of the next range, unless it is in or under way. */
    void prefetch() {
        lock.lock();
        try {
            if (next == null && !fetching) {
                startFetch();
            }
        } finally {
            lock.unlock();
        }
    }

    /** Replaces the used-up range {@code used} with the next one, waiting for it if need be. */
    void advance(ServedRange used) {
        lock.lock();
        try {
            TimeSource time = settings.time();
            long deadline = time.nanoTime() + settings.fetchTimeoutNanos();
            boolean counted = false;
            boolean attempted = false;
            while (current == used) {
                if (owner.isClosed()) {
                    throw closed();
                }
                if (next != null) {
                    if (used != EMPTY) {
                        usedUp += used.end - used.start;
                    }
                    current = next;
                    next = null;
                    return;
                }
                if (attempted && lastFailure instanceof UnknownTagException) {
                    owner.forget(tag, this);
                    throw new UnknownTagException(tag, "segment tag '" + tag + "' does not exist;"
                            + " create it first, or turn on segment.auto-create");
                }
                if (attempted && lastFailure instanceof IllegalArgumentException refused) {
                    // a name this store cannot hold (RangeStore#allocate): no retry will help
                    owner.forget(tag, this);
                    throw new IllegalArgumentException(refused.getMessage(), refused);
                }
                long now = time.nanoTime();
                if (!fetching && (!attempted || now - lastAttemptNanos >= RETRY_NANOS)) {
                    lastFailure = null;
                    startFetch();
                    attempted = true;
                    if (!fetching) {
                        continue;   // fetched on this thread (or refused): no need to wait
                    }
                }
                if (now - deadline >= 0) {
                    throw new IdUnavailableException(Reason.RUNWAY_EXHAUSTED, "segment tag '" + tag
                            + "': both buffers are empty and no range came from the store within "
                            + Durations.format(Duration.ofNanos(settings.fetchTimeoutNanos()))
                            + (lastFailure == null ? "" : " (last error: " + lastFailure + ")"),
                            RETRY_AFTER);
                }
                if (!counted) {
                    waits++;
                    counted = true;
                }
                changed.await(POLL_NANOS, TimeUnit.NANOSECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IdUnavailableException(Reason.INTERRUPTED, "segment tag '" + tag
                    + "': interrupted while waiting for a range", Duration.ZERO);
        } finally {
            lock.unlock();
        }
    }

    // requires lock
    private void startFetch() {
        fetching = true;
        lastAttemptNanos = settings.time().nanoTime();
        long startedNanos = lastAttemptNanos;
        // A range lasts from the start of its fetch to the start of the next one: both read on
        // the caller's thread, so the measure does not depend on how fast the store answers.
        long size = tagStep > 0
                ? settings.steps().next(step, startedNanos - lastFetchNanos, tagStep)
                : RangeStore.TAG_STEP;
        if (!owner.submit(() -> fetch(size, startedNanos))) {
            fetching = false;
        }
    }

    private void fetch(long size, long startedNanos) {
        ServedRange got = null;
        Throwable failure = null;
        try {
            Range r = allocate(size);
            // Cursors run past a range's end by at most a batch per thread; keep them far from
            // overflow.
            if (r.end() > Long.MAX_VALUE / 2) {
                throw new RegistryException(RegistryException.Kind.CORRUPT, "segment tag '" + tag
                        + "' reached " + r.end() + ", above the largest value served, 2^62");
            }
            got = new ServedRange(r.start(), r.end());
        } catch (RegistryException | RuntimeException | Error e) {
            // an Error too: the state below must be reset, or callers wait on "fetching" forever
            failure = e;
        }
        lock.lock();
        try {
            fetching = false;
            if (got != null) {
                ranges++;
                fetchNanos += settings.time().nanoTime() - startedNanos;
                next = got;
                step = got.end - got.start;
                if (tagStep == 0) {
                    tagStep = step;
                }
                lastFetchNanos = startedNanos;
            } else {
                fetchFailures++;
                lastFailure = failure;
            }
            changed.signalAll();
        } finally {
            lock.unlock();
        }
        if (failure instanceof Error e) {
            throw e;
        }
    }

    private Range allocate(long size) throws RegistryException {
        try {
            return settings.store().allocate(tag, size);
        } catch (UnknownTagException e) {
            if (!settings.autoCreate()) {
                throw e;
            }
        }
        try {
            settings.store().create(tag, 1, settings.steps().initial());
        } catch (RegistryException e) {
            if (e.kind() != RegistryException.Kind.CONFLICT) {
                throw e;
            }
            // another node created it first: fine
        }
        return settings.store().allocate(tag, size);
    }

    SegmentStats stats() {
        lock.lock();
        try {
            ServedRange s = current;
            long inCurrent = s.taken();
            long size = s.end - s.start;
            return new SegmentStats(tag, usedUp + inCurrent, ranges, fetchFailures, fetchNanos,
                    step, size - inCurrent, next != null);
        } finally {
            lock.unlock();
        }
    }

    long waits() {
        lock.lock();
        try {
            return waits;
        } finally {
            lock.unlock();
        }
    }

    void close() {
        lock.lock();
        try {
            // Later calls miss the hot path and see the generator closed.
            current = EMPTY;
            next = null;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    static IdUnavailableException closed() {
        return new IdUnavailableException(Reason.CLOSED, "the segment generator is closed",
                Duration.ZERO);
    }
}

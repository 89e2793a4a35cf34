package io.idmint.client;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * The IDs fetched and not yet handed out: a chain of batches, each an array of IDs with an index
 * that takers claim by an atomic add. A take is one add and one array read; only at the end of a
 * batch does a taker move the head to the next one (a compare-and-set) and wake the refill.
 * One thread, the refill, appends; any number take. Every claimed index is a different slot, so
 * no ID is handed out twice; IDs leave in the order they were appended.
 */
final class PrefetchBuffer {

    private static final VarHandle TAKEN;
    private static final VarHandle HEAD;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            TAKEN = lookup.findVarHandle(Batch.class, "taken", long.class);
            HEAD = lookup.findVarHandle(PrefetchBuffer.class, "head", Batch.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /**
     * IDs in append order; {@code taken} counts claims, which run past {@code size} once per
     * take that finds the batch used up: a long, which no number of such takes wraps around to
     * an index already handed out. {@code start} counts the IDs appended before it, so that
     * the head alone tells how many were handed out.
     */
    static final class Batch {
        final long[] ids;
        final int size;
        final long start;
        volatile long taken;
        volatile Batch next;

        Batch(long[] ids, int size, long start) {
            this.ids = ids;
            this.size = size;
            this.start = start;
        }
    }

    private volatile Batch head = new Batch(new long[0], 0, 0);
    /** The last batch; the refill's alone. */
    private Batch tail = head;
    /** IDs appended so far; written by the refill only. */
    private volatile long appended;
    /** Takers in {@link #await}; package-private for tests that wait until one waits. */
    final AtomicInteger waiters = new AtomicInteger();
    private final Object signal = new Object();
    private final Runnable wakeRefill;
    private volatile boolean closed;
    private volatile Error failure;

    /** {@code wakeRefill} runs whenever takers move on from a batch or start to wait. */
    PrefetchBuffer(Runnable wakeRefill) {
        this.wakeRefill = wakeRefill;
    }

    /**
     * The next ID, waiting at most {@code timeoutNanos} for the refill when none is buffered.
     *
     * @throws RuntimeException from {@code timeout} when none came in time
     * @throws IllegalStateException when the buffer is closed
     */
    long take(long timeoutNanos, Supplier<RuntimeException> timeout) {
        Batch b = head;
        long i = (long) TAKEN.getAndAdd(b, 1L);
        if (i < b.size) {
            return b.ids[(int) i];
        }
        return takeSlow(timeoutNanos, timeout);
    }

    private long takeSlow(long timeoutNanos, Supplier<RuntimeException> timeout) {
        long deadline = System.nanoTime() + timeoutNanos;
        while (true) {
            Batch b = head;
            long i = (long) TAKEN.getAndAdd(b, 1L);
            if (i < b.size) {
                return b.ids[(int) i];
            }
            Batch next = b.next;
            if (next != null) {
                if (HEAD.compareAndSet(this, b, next)) {
                    wakeRefill.run();
                }
                continue;
            }
            if (failure != null) {
                throw new IllegalStateException("the IdClient's refill thread died: " + failure,
                        failure);
            }
            if (closed) {
                throw new IllegalStateException("the IdClient is closed");
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw timeout.get();
            }
            await(b, left);
        }
    }

    /**
     * Waits until a batch follows {@code b}, the buffer closes (as {@link #fail} does too), or
     * {@code nanos} pass.
     */
    private void await(Batch b, long nanos) {
        waiters.incrementAndGet();
        wakeRefill.run();
        try {
            synchronized (signal) {
                if (b.next == null && !closed) {
                    TimeUnit.NANOSECONDS.timedWait(signal, nanos);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for IDs", e);
        } finally {
            waiters.decrementAndGet();
        }
    }

    /** Appends {@code ids[0..size)} (the refill thread only); takers see them at once. */
    void append(long[] ids, int size) {
        if (size == 0) {
            return;
        }
        Batch b = new Batch(ids, size, appended);
        // Counted before takers can reach it: appended is never below what they took.
        appended += size;
        tail.next = b;
        tail = b;
        if (waiters.get() > 0) {
            synchronized (signal) {
                signal.notifyAll();
            }
        }
    }

    /**
     * IDs buffered now: never fewer than are left when it returns, at most the takes racing it
     * more (one read of the head tells how many were handed out, see {@link Batch}).
     */
    long buffered() {
        return Math.max(0, appended - takenTotal());
    }

    /** IDs handed out so far (approximate while takers run). */
    long takenTotal() {
        Batch h = head;
        return h.start + Math.min(h.taken, h.size);
    }

    /**
     * The refill died of {@code error}: waiting and later takers, once the buffered IDs are
     * gone, fail with an {@link IllegalStateException} caused by it.
     */
    void fail(Error error) {
        failure = error;
        close();
    }

    /** Wakes every waiting taker, which then fails with {@link IllegalStateException}. */
    void close() {
        closed = true;
        synchronized (signal) {
            signal.notifyAll();
        }
    }
}

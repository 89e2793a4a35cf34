package io.idmint.segment;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A leased range {@code [start, end)} being served by a {@link TagBuffer}. Its cursor is the next
 * value to hand out and only goes up; it may run past the end, which means used up.
 *
 * <p>Every caller's atomic add moves the cursor's cache line between cores. The cursor has that
 * line to itself: 56 bytes of padding on each side (HotSpot lays out fields of one size in
 * declaration order) keep the fields read on every call, here and in other objects, on lines
 * that stay shared in every core's cache, so a call costs one transfer of the line, not two.
 */
final class ServedRange {

    private static final VarHandle CURSOR;

    static {
        try {
            CURSOR = MethodHandles.lookup().findVarHandle(ServedRange.class, "cursor", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    long p01, p02, p03, p04, p05, p06, p07;
    final long start;
    final long end;
    /** The value whose taker starts the fetch of the next range. */
    final long prefetchAt;
    long p11, p12, p13, p14, p15, p16, p17;
    /** A field of its own rather than an AtomicLong: one load less on every call. */
    private volatile long cursor;
    long p21, p22, p23, p24, p25, p26, p27;

    ServedRange(long start, long end) {
        this.start = start;
        this.end = end;
        this.prefetchAt = start + (end - start) / 10;
        this.cursor = start;
    }

    /** Takes {@code n} values and returns the first, which is at or past the end if used up. */
    long take(long n) {
        return (long) CURSOR.getAndAdd(this, n);
    }

    /** How many values were taken, at most the range's size. */
    long taken() {
        return Math.min(Math.max(cursor, start), end) - start;
    }

    /** Whether {@code [from, from + n)} holds the value that starts the next fetch. */
    boolean startsFetch(long from, long n) {
        return prefetchAt >= from && prefetchAt - from < n;
    }
}

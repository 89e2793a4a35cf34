package io.idmint.segment;

/**
 * A tag's IDs in {@link SegmentOrder#RELAXED} order: each thread takes a block of the range being
 * served with one atomic add on its cursor, then serves the block alone with plain increments.
 * A block is dropped when its range stops being the one served (which also makes a closed
 * generator refuse at once), so every ID comes from the current range. The block that holds the
 * range's prefetch value starts the next fetch, as that value does in issue order.
 */
final class RelaxedSequence implements SegmentSequence {

    /** The largest block; beyond it the atomic add costs under a thousandth of a call. */
    static final int MAX_BLOCK = 1_024;

    /**
     * One thread's block {@code [next, end)} of {@code range}; touched by that thread only. Padded
     * like {@link ServedRange}: {@code next} is written on every call, and two threads' blocks
     * may sit side by side in memory (a collector copies them so).
     */
    static final class Block {
        long p01, p02, p03, p04, p05, p06, p07;
        long next;
        long end;
        /** The size of the next block, before the range's own bound. */
        long size = 1;
        long p11, p12, p13, p14, p15, p16, p17;
        ServedRange range;
    }

    private final TagBuffer buffer;
    private final ThreadLocal<Block> blocks = ThreadLocal.withInitial(Block::new);

    RelaxedSequence(TagBuffer buffer) {
        this.buffer = buffer;
    }

    @Override
    public String tag() {
        return buffer.tag();
    }

    @Override
    public long next() {
        Block b = blocks.get();
        long v = b.next;
        if (v < b.end && b.range == buffer.current) {
            b.next = v + 1;
            return v;
        }
        return refill(b);
    }

    /** Takes a new block for this thread and returns its first value. */
    private long refill(Block b) {
        if (b.range != null) {
            // used up: the thread is busy, so a larger block; dropped with values left: smaller
            b.size = b.next >= b.end ? Math.min(b.size * 2, MAX_BLOCK) : Math.max(b.size / 2, 1);
        }
        for (;;) {
            ServedRange s = buffer.current;
            long n = Math.min(b.size, Math.max(1, (s.end - s.start) / 16));
            long v = s.take(n);
            if (v < s.end) {
                long got = Math.min(n, s.end - v);
                if (s.startsFetch(v, got)) {
                    buffer.prefetch();
                }
                b.range = s;
                b.next = v + 1;
                b.end = v + got;
                return v;
            }
            buffer.advance(s);
        }
    }

    /**
     * Serves what is left of this thread's block first: every value the batch then takes from
     * the range lies above it, so the thread's values stay increasing. The block is then done
     * with, without counting as used up or as dropped.
     */
    @Override
    public void next(long[] ids, int from, int to) {
        java.util.Objects.checkFromToIndex(from, to, ids.length);
        Block b = blocks.get();
        int at = from;
        if (b.range == buffer.current) {
            while (at < to && b.next < b.end) {
                ids[at++] = b.next++;
            }
        }
        b.range = null;
        buffer.next(ids, at, to);
    }
}

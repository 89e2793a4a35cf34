package io.idmint;

import io.idmint.spi.RangeStore;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Pattern;

/** The segment generator: one {@link TagBuffer} per tag, fetching on threads it owns. */
final class BufferedSegmentGenerator implements SegmentGenerator {

    private static final Pattern TAG = Pattern.compile("[A-Za-z0-9._-]{1,64}");
    private static final int FETCH_THREADS = 4;

    private final RangeStore store;
    private final TimeSource time;
    private final StepPolicy steps;
    private final long fetchTimeoutNanos;
    private final boolean autoCreate;
    private final SegmentOrder order;
    private final boolean fetchOnCallerThread;
    private final ConcurrentHashMap<String, TagBuffer> tags = new ConcurrentHashMap<>();
    private final ThreadPoolExecutor fetcher;
    private volatile boolean closed;

    BufferedSegmentGenerator(RangeStore store, TimeSource time, StepPolicy steps,
            long fetchTimeoutNanos, boolean autoCreate, SegmentOrder order,
            boolean fetchOnCallerThread) {
        this.store = store;
        this.time = time;
        this.steps = steps;
        this.fetchTimeoutNanos = fetchTimeoutNanos;
        this.autoCreate = autoCreate;
        this.order = order;
        this.fetchOnCallerThread = fetchOnCallerThread;
        AtomicInteger n = new AtomicInteger();
        // A few threads so that one slow tag does not hold up the prefetch of the others; idle
        // threads end, so an unused generator holds none.
        this.fetcher = new ThreadPoolExecutor(FETCH_THREADS, FETCH_THREADS, 30, TimeUnit.SECONDS,
                new LinkedBlockingQueue<>(), r -> {
                    Thread t = new Thread(r, "idmint-segments-" + n.incrementAndGet());
                    t.setDaemon(true);
                    return t;
                });
        fetcher.allowCoreThreadTimeOut(true);
    }

    @Override
    public long next(String tag) {
        return buffer(tag).sequence().next();
    }

    @Override
    public void next(String tag, long[] ids, int from, int to) {
        buffer(tag).sequence().next(ids, from, to);
    }

    @Override
    public SegmentSequence sequence(String tag) {
        requireTagName(tag);
        if (closed) {
            throw TagBuffer.closed();
        }
        // pinned inside the map's lock on the key, so forget() cannot drop it in between
        return tags.compute(tag, (t, b) -> {
            TagBuffer pinned = b != null ? b : new TagBuffer(t, this, order);
            pinned.pinned = true;
            return pinned;
        }).sequence();
    }

    private TagBuffer buffer(String tag) {
        TagBuffer b = tag == null ? null : tags.get(tag);
        if (b != null) {
            return b;
        }
        requireTagName(tag);
        if (closed) {
            throw TagBuffer.closed();
        }
        return tags.computeIfAbsent(tag, t -> new TagBuffer(t, this, order));
    }

    private static void requireTagName(String tag) {
        if (tag == null || !TAG.matcher(tag).matches()) {
            throw new IllegalArgumentException("segment tag '" + tag + "' must be 1 to 64 of "
                    + "A-Z a-z 0-9 . _ -");
        }
    }

    /**
     * Forgets a tag the store does not know, so unknown names do not pile up; but not one a
     * handle holds, so that a tag has one buffer, whichever way it is called.
     */
    void forget(String tag, TagBuffer buffer) {
        tags.computeIfPresent(tag, (t, b) -> b == buffer && !b.pinned ? null : b);
    }

    RangeStore store() {
        return store;
    }

    TimeSource time() {
        return time;
    }

    StepPolicy steps() {
        return steps;
    }

    long fetchTimeoutNanos() {
        return fetchTimeoutNanos;
    }

    boolean autoCreate() {
        return autoCreate;
    }

    boolean isClosed() {
        return closed;
    }

    /** Runs a fetch on the generator's threads; false when closed. */
    boolean submit(Runnable fetch) {
        if (fetchOnCallerThread) {
            if (closed) {
                return false;
            }
            fetch.run();
            return true;
        }
        try {
            fetcher.execute(fetch);
            return true;
        } catch (java.util.concurrent.RejectedExecutionException e) {
            return false;
        }
    }

    @Override
    public java.util.List<SegmentStats> stats() {
        return tags.values().stream().map(TagBuffer::stats)
                .sorted(java.util.Comparator.comparing(SegmentStats::tag)).toList();
    }

    /** Callers that had to wait for a range, over all tags: 1 per tag in the steady state. */
    long waits() {
        return tags.values().stream().mapToLong(TagBuffer::waits).sum();
    }

    /** Whether {@code tag}'s next range is in, for tests. */
    boolean prefetched(String tag) {
        TagBuffer b = tags.get(tag);
        return b != null && b.prefetched();
    }

    @Override
    public void close() {
        closed = true;
        fetcher.shutdownNow();
        tags.values().forEach(TagBuffer::close);
    }
}

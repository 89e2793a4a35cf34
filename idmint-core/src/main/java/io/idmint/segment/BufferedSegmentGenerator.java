package io.idmint.segment;

import io.idmint.spi.support.Names;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The segment generator: one {@link TagBuffer} per tag, fetching on an executor: by default
 * threads it owns, or one the builder was given.
 */
final class BufferedSegmentGenerator implements SegmentGenerator, TagBuffer.Owner {

    private static final int FETCH_THREADS = 4;

    private final SegmentSettings settings;
    private final ConcurrentHashMap<String, TagBuffer> tags = new ConcurrentHashMap<>();
    private final Executor fetcher;
    /** The fetch threads this generator started itself, shut down at close; else null. */
    private final ThreadPoolExecutor ownFetcher;
    private volatile boolean closed;

    /** @param fetcher where fetches run, or null for threads of the generator's own */
    BufferedSegmentGenerator(SegmentSettings settings, Executor fetcher) {
        this.settings = settings;
        this.ownFetcher = fetcher == null ? fetchThreads() : null;
        this.fetcher = fetcher == null ? ownFetcher : fetcher;
    }

    /**
     * A few threads so that one slow tag does not hold up the prefetch of the others; idle
     * threads end, so an unused generator holds none.
     */
    private static ThreadPoolExecutor fetchThreads() {
        AtomicInteger n = new AtomicInteger();
        ThreadPoolExecutor pool = new ThreadPoolExecutor(FETCH_THREADS, FETCH_THREADS, 30,
                TimeUnit.SECONDS, new LinkedBlockingQueue<>(), r -> {
                    Thread t = new Thread(r, "idmint-segments-" + n.incrementAndGet());
                    t.setDaemon(true);
                    return t;
                });
        pool.allowCoreThreadTimeOut(true);
        return pool;
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
        Names.requireTag(tag);
        if (closed) {
            throw TagBuffer.closed();
        }
        // pinned inside the map's lock on the key, so forget() cannot drop it in between
        return tags.compute(tag, (t, b) -> {
            TagBuffer pinned = b != null ? b : new TagBuffer(t, settings, this);
            pinned.pinned = true;
            return pinned;
        }).sequence();
    }

    private TagBuffer buffer(String tag) {
        TagBuffer b = tag == null ? null : tags.get(tag);
        if (b != null) {
            return b;
        }
        Names.requireTag(tag);
        if (closed) {
            throw TagBuffer.closed();
        }
        return tags.computeIfAbsent(tag, t -> new TagBuffer(t, settings, this));
    }

    /**
     * Forgets a tag the store does not know, so unknown names do not pile up; but not one a
     * handle holds, so that a tag has one buffer, whichever way it is called.
     */
    @Override
    public void forget(String tag, TagBuffer buffer) {
        tags.computeIfPresent(tag, (t, b) -> b == buffer && !b.pinned ? null : b);
    }

    @Override
    public boolean isClosed() {
        return closed;
    }

    @Override
    public boolean submit(Runnable fetch) {
        if (closed) {
            return false;
        }
        try {
            fetcher.execute(fetch);
            return true;
        } catch (RejectedExecutionException e) {
            return false;
        }
    }

    @Override
    public List<SegmentStats> stats() {
        return tags.values().stream().map(TagBuffer::stats)
                .sorted(Comparator.comparing(SegmentStats::tag)).toList();
    }

    /** Callers that had to wait for a range, over all tags: 1 per tag in the steady state. */
    long waits() {
        return tags.values().stream().mapToLong(TagBuffer::waits).sum();
    }

    @Override
    public void close() {
        closed = true;
        tags.values().forEach(TagBuffer::close);
        if (ownFetcher != null) {
            // Never interrupt a store call: an embedded H2 file database whose file channel is
            // interrupted mid-I/O closes itself, for every other user in the process too (a
            // restart on the same data dir saw "The database has been closed"). Fetches not
            // started are dropped; one under way ends within its fetch timeout, before the
            // caller closes the store.
            ownFetcher.getQueue().clear();
            ownFetcher.shutdown();
            try {
                ownFetcher.awaitTermination(settings.fetchTimeoutNanos(), TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}

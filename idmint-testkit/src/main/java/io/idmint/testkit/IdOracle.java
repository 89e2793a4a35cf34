package io.idmint.testkit;

import io.idmint.IdGenerator;
import io.idmint.IdParts;
import io.idmint.Layout;
import io.idmint.spi.Range;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Checks what a test minted: no duplicate across any set of IDs, strictly increasing order per
 * thread, and no near miss: two holders of one worker ID must have minted from disjoint time
 * ranges (a duplicate that did not happen only by luck of the sequence is still a bug).
 */
public final class IdOracle {

    private IdOracle() {
    }

    /**
     * Runs {@code threads} threads that each take {@code perThread} IDs from one generator, all
     * starting together, and checks order per thread and uniqueness across all.
     *
     * @return every thread's IDs, in the order each thread got them
     */
    public static long[][] mintConcurrently(IdGenerator generator, int threads, int perThread)
            throws InterruptedException {
        long[][] out = new long[threads][perThread];
        together(threads, t -> {
            for (int i = 0; i < perThread; i++) {
                out[t][i] = generator.nextId();
            }
        });
        for (long[] ids : out) {
            assertStrictlyIncreasing(ids);
        }
        assertUnique(out);
        return out;
    }

    /** What one thread of {@link #together} does; {@code thread} is its index from 0. */
    @FunctionalInterface
    public interface ThreadBody {
        void run(int thread) throws Exception;
    }

    /**
     * Runs {@code threads} threads, released all at once so that they contend, and waits for
     * them all.
     *
     * @throws AssertionError with the first thread's failure as its cause
     */
    public static void together(int threads, ThreadBody body) throws InterruptedException {
        CountDownLatch start = new CountDownLatch(1);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int me = t;
            Thread th = new Thread(() -> {
                try {
                    start.await();
                    body.run(me);
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            }, "together-" + t);
            th.start();
            workers.add(th);
        }
        start.countDown();
        for (Thread th : workers) {
            th.join();
        }
        if (failure.get() != null) {
            throw new AssertionError("a thread failed", failure.get());
        }
    }

    /**
     * Compares UUIDs as unsigned 128-bit numbers: their byte order, as PostgreSQL's {@code uuid}
     * sorts (not {@link java.util.UUID#compareTo}, which compares signed halves).
     */
    public static int compareUnsigned(java.util.UUID a, java.util.UUID b) {
        int c = Long.compareUnsigned(a.getMostSignificantBits(), b.getMostSignificantBits());
        return c != 0 ? c
                : Long.compareUnsigned(a.getLeastSignificantBits(), b.getLeastSignificantBits());
    }

    /** Fails on the first ID not above the one before it. */
    public static void assertStrictlyIncreasing(long[] ids) {
        for (int i = 1; i < ids.length; i++) {
            if (ids[i] <= ids[i - 1]) {
                throw new AssertionError("ID #" + i + " = " + ids[i] + " is not above the one "
                        + "before it, " + ids[i - 1]);
            }
        }
    }

    /** Fails on any ID that occurs twice across all arrays, or on a non-positive ID. */
    public static void assertUnique(long[]... batches) {
        int total = 0;
        for (long[] b : batches) {
            total += b.length;
        }
        long[] all = new long[total];
        int at = 0;
        for (long[] b : batches) {
            System.arraycopy(b, 0, all, at, b.length);
            at += b.length;
        }
        Arrays.sort(all);
        for (int i = 0; i < all.length; i++) {
            if (all[i] <= 0) {
                throw new AssertionError("ID " + all[i] + " is not positive");
            }
            if (i > 0 && all[i] == all[i - 1]) {
                throw new AssertionError("duplicate ID " + all[i] + " among " + total + " IDs");
            }
        }
    }

    /**
     * Fails when two segment ranges overlap (a value handed out twice).
     *
     * @return the highest end among the ranges (0 for none): every later allocation of their tag
     *     must start at or above it
     */
    public static long assertDisjointRanges(Collection<Range> ranges) {
        List<Range> sorted = new ArrayList<>(ranges);
        sorted.sort(Comparator.comparingLong(Range::start));
        long top = 0;
        for (int i = 0; i < sorted.size(); i++) {
            Range r = sorted.get(i);
            if (i > 0 && r.start() < sorted.get(i - 1).end()) {
                throw new AssertionError("ranges " + sorted.get(i - 1) + " and " + r
                        + " overlap, among " + sorted.size() + " ranges");
            }
            top = Math.max(top, r.end());
        }
        return top;
    }

    /**
     * Checks that, for every (datacenter, worker), the holders' time ranges do not overlap: for
     * each holder, the span [first tick, last tick] it minted on that worker is disjoint from
     * every other holder's span on the same worker. Also checks uniqueness.
     *
     * @param idsByHolder the IDs each holder (process, generator instance, lease) minted
     */
    public static void assertDisjointHolders(Layout layout, Map<String, long[]> idsByHolder) {
        assertUnique(idsByHolder.values().toArray(new long[0][]));
        Map<String, List<long[]>> spansByWorker = new TreeMap<>();
        Map<long[], String> owner = new java.util.IdentityHashMap<>();
        for (Map.Entry<String, long[]> h : idsByHolder.entrySet()) {
            Map<String, long[]> spans = new TreeMap<>();
            for (long id : h.getValue()) {
                IdParts p = layout.decode(id);
                String worker = p.datacenterId() + "/" + p.workerId();
                long[] span = spans.computeIfAbsent(worker, k -> new long[] {Long.MAX_VALUE,
                        Long.MIN_VALUE});
                span[0] = Math.min(span[0], p.timestampMillis());
                span[1] = Math.max(span[1], p.timestampMillis());
            }
            for (Map.Entry<String, long[]> s : spans.entrySet()) {
                spansByWorker.computeIfAbsent(s.getKey(), k -> new ArrayList<>()).add(s.getValue());
                owner.put(s.getValue(), h.getKey());
            }
        }
        for (Map.Entry<String, List<long[]>> w : spansByWorker.entrySet()) {
            List<long[]> spans = w.getValue();
            spans.sort((a, b) -> Long.compare(a[0], b[0]));
            for (int i = 1; i < spans.size(); i++) {
                long[] prev = spans.get(i - 1);
                long[] cur = spans.get(i);
                if (cur[0] <= prev[1]) {
                    throw new AssertionError("near miss on worker " + w.getKey() + ": holder "
                            + owner.get(prev) + " minted " + prev[0] + ".." + prev[1]
                                    + " and holder "
                            + owner.get(cur) + " minted " + cur[0] + ".." + cur[1]);
                }
            }
        }
    }
}

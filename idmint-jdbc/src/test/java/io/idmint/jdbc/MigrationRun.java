package io.idmint.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import io.idmint.IdUnavailableException;
import io.idmint.segment.SegmentGenerator;
import io.idmint.segment.Segments;
import io.idmint.spi.Range;
import io.idmint.spi.RangeStore;
import io.idmint.spi.RegistryException;
import io.idmint.testkit.ForwardingRangeStore;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * A rolling migration under load: two Leaf servers ({@link LeafSegmentServer}) and two idmint
 * segment generators on {@code idmint.table=leaf_alloc} serve one tag at once, three threads
 * each. The first server of each side is killed when its threads have drawn half their IDs,
 * while they draw: it serves nothing more, its buffered values are lost, and a new one takes
 * its place. Then the accounting: every segment or range any side loaded tiles the values taken
 * from the row, and every ID lies in one of its own side's, once.
 */
final class MigrationRun {

    /** What the run drew and took. */
    record Result(long leafIds, long idmintIds, long leafRanges, long idmintRanges, long taken,
            long alternations) {
    }

    /** One serving incarnation of a node: it can be killed. */
    private interface Node {
        /** An ID; throws when killed, returns a negative Leaf code when it cannot serve. */
        long next();

        void kill() throws Exception;

        /** Stops it and waits until no allocation of its is in flight. */
        void stop() throws Exception;
    }

    private final String tag;
    private final String url;
    private final Supplier<RangeStore> stores;
    private final int perThread;
    private final List<LeafSegmentServer> leafServers = new ArrayList<>();
    private final Queue<Range> idmintRanges = new ConcurrentLinkedQueue<>();
    private final List<AutoCloseable> toClose = new ArrayList<>();
    private final List<Node> nodes = new ArrayList<>();
    /** idmint allocations under way, guarded by itself. */
    private final int[] inFlight = new int[1];

    MigrationRun(String tag, String url, Supplier<RangeStore> stores, int perThread) {
        this.tag = tag;
        this.url = url;
        this.stores = stores;
        this.perThread = perThread;
    }

    private synchronized Node leaf() {
        LeafSegmentServer server = new LeafSegmentServer(url);
        leafServers.add(server);
        toClose.add(server);
        try {
            server.init();
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException(e);
        }
        return add(new Node() {
            @Override
            public long next() {
                return server.get(tag);
            }

            @Override
            public void kill() {
                server.kill();
            }

            @Override
            public void stop() throws InterruptedException {
                server.close();
            }
        });
    }

    private synchronized Node idmint() {
        RangeStore store = recording(stores.get());
        toClose.add(store);
        // Small steps: many idmint ranges between Leaf's (whose step doubles up to 10^6).
        SegmentGenerator g = Segments.newBuilder().store(store).minStep(10).maxStep(500)
                .fetchTimeout(java.time.Duration.ofSeconds(30)).build();
        return add(new Node() {
            @Override
            public long next() {
                return g.next(tag);
            }

            @Override
            public void kill() {
                g.close();
            }

            @Override
            public void stop() throws InterruptedException {
                g.close();
                synchronized (inFlight) {
                    while (inFlight[0] > 0) {
                        inFlight.wait();
                    }
                }
            }
        });
    }

    private synchronized Node add(Node n) {
        nodes.add(n);
        return n;
    }

    /** A store that records every range it hands out. */
    private RangeStore recording(RangeStore s) {
        return new ForwardingRangeStore(s) {
            @Override
            public Range allocate(String t, long size) throws RegistryException {
                synchronized (inFlight) {
                    inFlight[0]++;
                }
                try {
                    Range r = delegate.allocate(t, size);
                    idmintRanges.add(r);
                    return r;
                } finally {
                    synchronized (inFlight) {
                        inFlight[0]--;
                        inFlight.notifyAll();
                    }
                }
            }
        };
    }

    Result run() throws Exception {
        int threads = 12;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CountDownLatch go = new CountDownLatch(1);
        List<Future<long[]>> drawn = new ArrayList<>();
        try {
            for (int n = 0; n < 4; n++) {
                boolean isLeaf = n < 2;
                boolean killed = n % 2 == 0;
                AtomicReference<Node> node = new AtomicReference<>(isLeaf ? leaf() : idmint());
                for (int t = 0; t < 3; t++) {
                    boolean killer = killed && t == 0;
                    drawn.add(pool.submit(() -> draw(node, go, killer, isLeaf)));
                }
            }
            go.countDown();
            long[][] ids = new long[threads][];
            for (int i = 0; i < threads; i++) {
                ids[i] = drawn.get(i).get(10, TimeUnit.MINUTES);
            }
            // every prefetch still under way finishes (and is recorded) before the accounting
            for (Node n : nodes) {
                n.stop();
            }
            return account(ids);
        } finally {
            pool.shutdownNow();
            for (AutoCloseable c : toClose) {
                c.close();
            }
        }
    }

    /** One thread's draws; the killer replaces its node half-way, the others keep drawing. */
    private long[] draw(AtomicReference<Node> node, CountDownLatch go, boolean killer,
            boolean isLeaf) throws Exception {
        go.await();
        long[] out = new long[perThread];
        int i = 0;
        while (i < perThread) {
            if (killer && i == perThread / 2) {
                Node old = node.get();
                node.set(isLeaf ? leaf() : idmint());
                old.kill();
            }
            long v;
            try {
                v = node.get().next();
            } catch (IllegalStateException | IdUnavailableException e) {
                continue; // the killed node: the next call goes to its replacement
            }
            if (v >= 0) {
                out[i++] = v;
            }
        }
        return out;
    }

    private Result account(long[][] ids) {
        List<Range> leafRanges = new ArrayList<>();
        leafServers.forEach(s -> leafRanges.addAll(s.segments()));
        List<Range> all = new ArrayList<>(leafRanges);
        all.addAll(idmintRanges);
        long end = all.stream().mapToLong(Range::end).max().orElse(1);
        LeafAllocContract.assertTiled(all, 1, end);
        long[] every = Arrays.stream(ids).flatMapToLong(Arrays::stream).sorted().toArray();
        for (int i = 1; i < every.length; i++) {
            assertThat(every[i]).as("ID issued twice").isGreaterThan(every[i - 1]);
        }
        for (int t = 0; t < ids.length; t++) {
            List<Range> own = t < 6 ? leafRanges : new ArrayList<>(idmintRanges);
            own.sort(Comparator.comparingLong(Range::start));
            long[] starts = own.stream().mapToLong(Range::start).toArray();
            for (long v : ids[t]) {
                int at = Arrays.binarySearch(starts, v);
                int k = at >= 0 ? at : -at - 2;
                assertThat(k >= 0 && v < own.get(k).end()).as("ID %d of thread %d in its side's "
                        + "ranges", v, t).isTrue();
            }
        }
        // how often the row passed from one side to the other, in value order
        List<Range> sorted = new ArrayList<>(all);
        sorted.sort(Comparator.comparingLong(Range::start));
        java.util.Set<Range> leafSet = new java.util.HashSet<>(leafRanges);
        long alternations = 0;
        for (int i = 1; i < sorted.size(); i++) {
            if (leafSet.contains(sorted.get(i)) != leafSet.contains(sorted.get(i - 1))) {
                alternations++;
            }
        }
        long leafIds = 6L * perThread;
        return new Result(leafIds, (long) every.length - leafIds, leafRanges.size(),
                idmintRanges.size(), end - 1, alternations);
    }
}

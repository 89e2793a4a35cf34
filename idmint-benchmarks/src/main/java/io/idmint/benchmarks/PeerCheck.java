package io.idmint.benchmarks;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.CyclicBarrier;

/**
 * The uniqueness half of the peer comparison, outside JMH: for each generator of
 * {@link PeerBenchmark}, {@code THREADS} threads mint {@code IDS} IDs each from one shared
 * instance, all starting together; then every ID is sorted and adjacent equal ones are counted
 * as duplicates. Each thread also takes the lead of its last ID the moment it is done (its
 * timestamp, decoded with the library's own layout, minus {@link System#currentTimeMillis()}),
 * and the largest is printed: the lead after a burst of {@code THREADS x IDS} IDs.
 *
 * <pre>
 * java -Xmx3g -cp idmint-benchmarks/target/benchmarks.jar io.idmint.benchmarks.PeerCheck \
 *     THREADS IDS [IMPL ...]
 * </pre>
 *
 * <p>Without {@code IMPL} it checks every generator of {@link PeerBenchmark#impl}. One line per
 * generator: {@code check IMPL threads T ids N duplicates D lead L seconds S} ({@code lead -}
 * for IDs without a timestamp). Exits 1 if any generator minted a duplicate or failed. A 64-bit
 * ID costs 8 bytes of heap, a UUID about 40: size {@code -Xmx} for the largest.
 */
public final class PeerCheck {

    private PeerCheck() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 2) {
            System.err.println("usage: PeerCheck THREADS IDS_PER_THREAD [IMPL ...]");
            System.exit(2);
        }
        int threads = positive(args[0], "THREADS");
        int ids = positive(args[1], "IDS_PER_THREAD");
        List<String> impls = args.length > 2
                ? List.of(Arrays.copyOfRange(args, 2, args.length)) : PeerBenchmark.impls();
        boolean clean = true;
        for (String impl : impls) {
            try (Peer peer = Peer.open(impl)) {
                clean &= check(peer, threads, ids);
            }
        }
        // CosId's prefetch threads and the like must not keep the JVM alive.
        System.exit(clean ? 0 : 1);
    }

    private static int positive(String value, String name) {
        int n;
        try {
            n = Integer.parseInt(value);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " must be a positive integer, got '"
                    + value + "'", e);
        }
        if (n <= 0) {
            throw new IllegalArgumentException(name + " must be positive, got " + n);
        }
        return n;
    }

    /** Runs one generator; prints its line; true when it minted no duplicate. */
    private static boolean check(Peer peer, int threads, int ids) throws Exception {
        long[][] longs = new long[threads][];
        UUID[][] uuids = new UUID[threads][];
        long[] leads = new long[threads];
        Throwable[] failures = new Throwable[threads];
        CyclicBarrier start = new CyclicBarrier(threads);
        List<Thread> running = new ArrayList<>();
        long began = System.nanoTime();
        for (int t = 0; t < threads; t++) {
            int me = t;
            Thread thread = new Thread(() -> {
                try {
                    start.await();
                    if (peer.longs != null) {
                        long[] mine = new long[ids];
                        for (int i = 0; i < ids; i++) {
                            mine[i] = peer.longs.getAsLong();
                        }
                        if (peer.hasTime()) {
                            leads[me] = peer.millisOf(mine[ids - 1]) - System.currentTimeMillis();
                        }
                        longs[me] = mine;
                    } else {
                        UUID[] mine = new UUID[ids];
                        for (int i = 0; i < ids; i++) {
                            mine[i] = peer.uuids.get();
                        }
                        if (peer.hasTime()) {
                            leads[me] = peer.millisOf(mine[ids - 1]) - System.currentTimeMillis();
                        }
                        uuids[me] = mine;
                    }
                } catch (Throwable e) {
                    failures[me] = e;
                }
            }, "check-" + peer.name + "-" + t);
            thread.start();
            running.add(thread);
        }
        for (Thread thread : running) {
            thread.join();
        }
        double seconds = (System.nanoTime() - began) / 1e9;
        for (Throwable failure : failures) {
            if (failure != null) {
                System.out.printf("check %s failed: %s%n", peer.name, failure);
                return false;
            }
        }
        long duplicates = peer.longs != null ? duplicates(longs) : duplicates(uuids);
        String lead = peer.hasTime()
                ? String.format(Locale.ROOT, "%+d", Arrays.stream(leads).max().orElseThrow())
                : "-";
        System.out.printf(Locale.ROOT, "check %s threads %d ids %d duplicates %d lead %s"
                + " seconds %.3f%n", peer.name, threads, (long) threads * ids, duplicates, lead,
                seconds);
        System.out.flush();
        return duplicates == 0;
    }

    /** How many IDs equal one before them in sorted order (k copies of one ID count k - 1). */
    static long duplicates(long[][] perThread) {
        long[] all = Arrays.stream(perThread).flatMapToLong(Arrays::stream).toArray();
        Arrays.parallelSort(all);
        long duplicates = 0;
        for (int i = 1; i < all.length; i++) {
            if (all[i] == all[i - 1]) {
                duplicates++;
            }
        }
        return duplicates;
    }

    /** As {@link #duplicates(long[][])}, for UUIDs. */
    static long duplicates(UUID[][] perThread) {
        UUID[] all = Arrays.stream(perThread).flatMap(Arrays::stream).toArray(UUID[]::new);
        // UUID's order compares signed halves: not time order, but a total order, which is
        // all that finding equal neighbours needs.
        Arrays.parallelSort(all);
        long duplicates = 0;
        for (int i = 1; i < all.length; i++) {
            if (all[i].equals(all[i - 1])) {
                duplicates++;
            }
        }
        return duplicates;
    }
}

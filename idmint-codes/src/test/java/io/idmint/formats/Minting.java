package io.idmint.formats;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;

/**
 * {@link io.idmint.testkit.IdOracle#mintConcurrently} for IDs wider than a {@code long}: threads
 * start together on one generator; each thread's IDs must be strictly increasing in their
 * natural order, and all of them distinct.
 */
final class Minting {

    private Minting() {
    }

    static <T extends Comparable<T>> List<List<T>> concurrently(FormatGenerator<T> generator,
            int threads, int perThread) throws InterruptedException {
        List<List<T>> out = new ArrayList<>();
        CountDownLatch start = new CountDownLatch(1);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            List<T> mine = new ArrayList<>(perThread);
            out.add(mine);
            Thread th = new Thread(() -> {
                try {
                    start.await();
                    for (int i = 0; i < perThread; i++) {
                        mine.add(generator.next());
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            }, "minting-" + t);
            th.start();
            workers.add(th);
        }
        start.countDown();
        for (Thread th : workers) {
            th.join();
        }
        if (failure.get() != null) {
            throw new AssertionError("a minting thread failed", failure.get());
        }
        Set<T> all = new HashSet<>();
        for (List<T> ids : out) {
            assertStrictlyIncreasing(ids);
            for (T id : ids) {
                if (!all.add(id)) {
                    throw new AssertionError("duplicate " + id);
                }
            }
        }
        return out;
    }

    static <T extends Comparable<T>> void assertStrictlyIncreasing(List<T> ids) {
        for (int i = 1; i < ids.size(); i++) {
            if (ids.get(i).compareTo(ids.get(i - 1)) <= 0) {
                throw new AssertionError("#" + i + " " + ids.get(i) + " is not above the one "
                        + "before it, " + ids.get(i - 1));
            }
        }
    }
}

package io.idmint.testkit;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/** Runs tasks at once, each on a thread of its own, for tests that save or mint concurrently. */
public final class Together {

    private Together() {
    }

    /**
     * Runs {@code copies} copies of each task at once and waits for all of them.
     *
     * @throws ExecutionException with the first failure, after every task has ended
     */
    public static void run(int copies, Runnable... tasks)
            throws ExecutionException, InterruptedException {
        ExecutorService pool = Executors.newFixedThreadPool(copies * tasks.length);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (Runnable task : tasks) {
                for (int i = 0; i < copies; i++) {
                    done.add(pool.submit(task));
                }
            }
            ExecutionException first = null;
            for (Future<?> f : done) {
                try {
                    f.get();
                } catch (ExecutionException e) {
                    first = first == null ? e : first;
                }
            }
            if (first != null) {
                throw first;
            }
        } finally {
            pool.shutdownNow();
        }
    }
}

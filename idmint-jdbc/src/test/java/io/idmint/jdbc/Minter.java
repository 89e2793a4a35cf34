package io.idmint.jdbc;

import io.idmint.IdGenerator;
import io.idmint.IdUnavailableException;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;

/**
 * A thread that takes IDs from one generator at a modest pace (a few per millisecond, so memory
 * stays small) and keeps every ID it got; refusals are counted, not kept.
 */
final class Minter implements AutoCloseable {

    private final IdGenerator generator;
    private final Thread thread;
    private volatile boolean stop;
    private long[] ids = new long[4096];
    private int count;
    private volatile int refusals;

    private Minter(IdGenerator generator, String name) {
        this.generator = generator;
        this.thread = new Thread(this::run, "minter-" + name);
        this.thread.setDaemon(true);
    }

    static Minter start(IdGenerator generator, String name) {
        Minter m = new Minter(generator, name);
        m.thread.start();
        return m;
    }

    private void run() {
        while (!stop) {
            try {
                for (int i = 0; i < 4; i++) {
                    long id = generator.nextId();
                    synchronized (this) {
                        if (count == ids.length) {
                            ids = Arrays.copyOf(ids, count * 2);
                        }
                        ids[count++] = id;
                    }
                }
            } catch (IdUnavailableException e) {
                refusals++;
            }
            try {
                Thread.sleep(1);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    synchronized int count() {
        return count;
    }

    int refusals() {
        return refusals;
    }

    /** Waits until at least {@code n} IDs were taken. */
    void awaitCount(int n, long timeoutSeconds) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
        while (count() < n) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError(thread.getName() + " got only " + count() + " of " + n
                        + " IDs in " + timeoutSeconds + " s; " + generator.status());
            }
            Thread.sleep(10);
        }
    }

    /** Stops minting and returns every ID taken, in order. */
    long[] stopAndGet() throws InterruptedException {
        stop = true;
        thread.join(TimeUnit.SECONDS.toMillis(30));
        if (thread.isAlive()) {
            throw new AssertionError(thread.getName() + " did not stop");
        }
        synchronized (this) {
            return Arrays.copyOf(ids, count);
        }
    }

    @Override
    public void close() {
        stop = true;
        try {
            thread.join(TimeUnit.SECONDS.toMillis(30));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}

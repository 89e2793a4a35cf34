package io.idmint.testkit;

import io.idmint.IdGenerator;
import io.idmint.IdUnavailableException;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Takes IDs from one generator on its own thread until closed, at a bounded rate (up to 20 a
 * millisecond), keeping every ID for the oracle and counting the calls the generator refused.
 * {@link #close()} fails if the generator threw anything but {@link IdUnavailableException}.
 */
public final class MintingThread implements AutoCloseable {

    private final IdGenerator generator;
    private final Thread thread;
    private final AtomicLong refused = new AtomicLong();
    private volatile boolean stop;
    private volatile long lastIdNanos;
    private volatile Throwable failure;
    private long[] ids = new long[1 << 16];
    private int count;

    /** Starts minting from {@code generator} on a daemon thread named after {@code name}. */
    public MintingThread(String name, IdGenerator generator) {
        this.generator = generator;
        this.thread = new Thread(this::run, "minter-" + name);
        thread.setDaemon(true);
        thread.start();
    }

    private void run() {
        try {
            while (!stop) {
                mintSome();
                Thread.sleep(1);
            }
        } catch (InterruptedException e) {
            // closing
        } catch (RuntimeException | Error e) {
            failure = e;
        }
    }

    private void mintSome() {
        for (int i = 0; i < 20 && !stop; i++) {
            long id;
            try {
                id = generator.nextId();
            } catch (IdUnavailableException e) {
                refused.incrementAndGet();
                return;
            }
            lastIdNanos = System.nanoTime();
            synchronized (this) {
                if (count == ids.length) {
                    ids = Arrays.copyOf(ids, count * 2);
                }
                ids[count++] = id;
            }
        }
    }

    /** How many IDs it took so far. */
    public synchronized int count() {
        return count;
    }

    /** The IDs so far, in the order they were issued. */
    public synchronized long[] ids() {
        return Arrays.copyOf(ids, count);
    }

    /** Waits until at least {@code n} IDs were taken; fails after {@code timeoutSeconds}. */
    public void awaitCount(int n, long timeoutSeconds) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
        while (count() < n) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError(thread.getName() + " got only " + count() + " of " + n
                        + " IDs in " + timeoutSeconds + " s; " + generator.status());
            }
            Thread.sleep(10);
        }
    }

    /** How many calls the generator refused. */
    public long refused() {
        return refused.get();
    }

    /** When the last ID was taken, on {@link System#nanoTime()}; 0 before the first. */
    public long lastIdNanos() {
        return lastIdNanos;
    }

    /** Stops minting; fails if the generator threw something other than a refusal. */
    @Override
    public void close() {
        stop = true;
        try {
            thread.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (failure != null) {
            throw new AssertionError("minter failed", failure);
        }
    }
}

package io.idmint.zookeeper;

import io.idmint.IdGenerator;
import io.idmint.IdUnavailableException;
import java.util.Arrays;
import java.util.concurrent.locks.LockSupport;

/**
 * Takes IDs from a generator on its own thread, paced (about one per 0.2 ms) so a test of
 * several seconds keeps every ID for the oracle; refusals are counted, not kept.
 */
final class Minter implements AutoCloseable {

    private final Thread thread;
    private volatile boolean stop;
    private long[] ids = new long[4096];
    private int count;
    private int refused;
    private volatile Throwable failure;

    Minter(String name, IdGenerator generator) {
        thread = new Thread(() -> {
            while (!stop) {
                try {
                    long id = generator.nextId();
                    synchronized (this) {
                        if (count == ids.length) {
                            ids = Arrays.copyOf(ids, count * 2);
                        }
                        ids[count++] = id;
                    }
                } catch (IdUnavailableException e) {
                    synchronized (this) {
                        refused++;
                    }
                } catch (Throwable e) {
                    failure = e;
                    return;
                }
                LockSupport.parkNanos(200_000);
            }
        }, "minter-" + name);
        thread.setDaemon(true);
        thread.start();
    }

    synchronized int count() {
        return count;
    }

    synchronized int refused() {
        return refused;
    }

    /** The IDs so far, in the order they were issued. */
    synchronized long[] ids() {
        return Arrays.copyOf(ids, count);
    }

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

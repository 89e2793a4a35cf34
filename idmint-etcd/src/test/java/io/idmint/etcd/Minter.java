package io.idmint.etcd;

import io.idmint.IdGenerator;
import io.idmint.IdUnavailableException;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Takes IDs from one generator on its own thread until closed, at a bounded rate, counting the
 * calls the generator refused.
 */
final class Minter implements AutoCloseable {

    private final IdGenerator generator;
    private final Thread thread;
    private final AtomicLong refused = new AtomicLong();
    private volatile boolean stop;
    private volatile long lastIdNanos;
    private long[] ids = new long[1 << 16];
    private int count;

    Minter(IdGenerator generator, String name) {
        this.generator = generator;
        this.thread = new Thread(this::run, "minter-" + name);
        thread.setDaemon(true);
        thread.start();
    }

    private void run() {
        while (!stop) {
            for (int i = 0; i < 20 && !stop; i++) {
                long id;
                try {
                    id = generator.nextId();
                } catch (IdUnavailableException e) {
                    refused.incrementAndGet();
                    break;
                }
                lastIdNanos = System.nanoTime();
                synchronized (this) {
                    if (count == ids.length) {
                        ids = Arrays.copyOf(ids, count * 2);
                    }
                    ids[count++] = id;
                }
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

    synchronized long[] ids() {
        return Arrays.copyOf(ids, count);
    }

    long refused() {
        return refused.get();
    }

    /** When the last ID was taken, on {@link System#nanoTime()}; 0 before the first. */
    long lastIdNanos() {
        return lastIdNanos;
    }

    @Override
    public void close() {
        stop = true;
        try {
            thread.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}

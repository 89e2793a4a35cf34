package io.idmint.testkit;

import io.idmint.spi.Claim;
import io.idmint.spi.ClaimRequest;
import io.idmint.spi.RegistryException;
import io.idmint.spi.RegistryException.Kind;
import io.idmint.spi.WorkerRecord;
import io.idmint.spi.WorkerRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;

/**
 * A registry client whose calls can be held at the door, like a node whose maintenance thread
 * is stopped (SIGSTOP, a long GC or VM pause) while its hot path goes on within the runway: a
 * held call reaches the store only after {@link #resume()}, with what it had. Records how each
 * extend and release ended, so a test can show that a resumed zombie was fenced.
 */
public final class PausableRegistry implements WorkerRegistry {

    private final WorkerRegistry delegate;
    private final List<String> outcomes = new ArrayList<>();
    private boolean paused;
    private int held;

    public PausableRegistry(WorkerRegistry delegate) {
        this.delegate = delegate;
    }

    /** Holds every call from now on at the door. */
    public synchronized void pause() {
        paused = true;
    }

    /** Lets the held calls and all later ones through. */
    public synchronized void resume() {
        paused = false;
        notifyAll();
    }

    /** Waits until a call is being held at the door. */
    public synchronized void awaitHeld(long timeout, TimeUnit unit) throws InterruptedException {
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        while (held == 0) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new AssertionError("no registry call was held within " + timeout + " "
                        + unit);
            }
            TimeUnit.NANOSECONDS.timedWait(this, left);
        }
    }

    /** {@code "extend OK"}, {@code "extend LEASE_LOST"}, {@code "release UNAVAILABLE"}, …. */
    public synchronized List<String> outcomes() {
        return new ArrayList<>(outcomes);
    }

    /** Whether the store ever answered an extend with {@link Kind#LEASE_LOST}. */
    public boolean sawLeaseLost() {
        return outcomes().contains("extend " + Kind.LEASE_LOST);
    }

    private synchronized void door() throws RegistryException {
        try {
            if (paused) {
                held++;
                notifyAll();
                while (paused) {
                    wait();
                }
                held--;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RegistryException(Kind.UNAVAILABLE, "interrupted while paused");
        }
    }

    private synchronized void record(String what) {
        outcomes.add(what);
    }

    @Override
    public Claim claim(ClaimRequest request) throws RegistryException {
        door();
        return delegate.claim(request);
    }

    @Override
    public long extend(Claim claim, long untilMillis) throws RegistryException {
        door();
        try {
            long token = delegate.extend(claim, untilMillis);
            record("extend OK");
            return token;
        } catch (RegistryException e) {
            record("extend " + e.kind());
            throw e;
        }
    }

    @Override
    public void release(Claim claim, long finalHwmMillis) throws RegistryException {
        door();
        try {
            delegate.release(claim, finalHwmMillis);
            record("release OK");
        } catch (RegistryException e) {
            record("release " + e.kind());
            throw e;
        }
    }

    @Override
    public List<WorkerRecord> list(String namespace) throws RegistryException {
        door();
        return delegate.list(namespace);
    }

    @Override
    public List<WorkerRecord> heldWorkers(String namespace) throws RegistryException {
        door();
        return delegate.heldWorkers(namespace);
    }

    @Override
    public OptionalLong storeTimeMillis() throws RegistryException {
        door();
        return delegate.storeTimeMillis();
    }

    /** Resumes, then closes the client. */
    @Override
    public void close() {
        resume();
        delegate.close();
    }
}

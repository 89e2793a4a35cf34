package io.idmint.zookeeper;

import io.idmint.spi.Claim;
import io.idmint.spi.ClaimRequest;
import io.idmint.spi.RegistryException;
import io.idmint.spi.RegistryException.Kind;
import io.idmint.spi.WorkerRecord;
import io.idmint.spi.WorkerRegistry;
import java.util.ArrayList;
import java.util.List;

/**
 * A registry whose calls can be held at the door, like a node whose maintenance thread is
 * stopped (SIGSTOP, a long GC pause) while its hot path goes on within the runway. Records how
 * each extend and release ended.
 */
final class PausableRegistry implements WorkerRegistry {

    private final WorkerRegistry delegate;
    private final List<String> outcomes = new ArrayList<>();
    private boolean paused;

    PausableRegistry(WorkerRegistry delegate) {
        this.delegate = delegate;
    }

    synchronized void pause() {
        paused = true;
    }

    synchronized void resume() {
        paused = false;
        notifyAll();
    }

    /** "extend OK", "extend LEASE_LOST", "release UNAVAILABLE", … in call order. */
    synchronized List<String> outcomes() {
        return new ArrayList<>(outcomes);
    }

    private synchronized void door() throws RegistryException {
        try {
            while (paused) {
                wait();
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
    public void close() {
        resume();
        delegate.close();
    }
}

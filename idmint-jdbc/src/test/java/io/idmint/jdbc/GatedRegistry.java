package io.idmint.jdbc;

import io.idmint.spi.Claim;
import io.idmint.spi.ClaimRequest;
import io.idmint.spi.RegistryException;
import io.idmint.spi.WorkerRecord;
import io.idmint.spi.WorkerRegistry;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A registry client whose node can be frozen: while paused, every call waits at the gate, as
 * in a long GC pause or SIGSTOP, and then reaches the store with what it had. Records whether
 * the store ever answered an extend with {@code LEASE_LOST}.
 */
final class GatedRegistry implements WorkerRegistry {

    private final WorkerRegistry delegate;
    private volatile CountDownLatch gate;
    private volatile boolean leaseLost;

    GatedRegistry(WorkerRegistry delegate) {
        this.delegate = delegate;
    }

    void pause() {
        gate = new CountDownLatch(1);
    }

    void resume() {
        CountDownLatch g = gate;
        gate = null;
        if (g != null) {
            g.countDown();
        }
    }

    boolean sawLeaseLost() {
        return leaseLost;
    }

    private void passGate() {
        CountDownLatch g = gate;
        if (g != null) {
            try {
                if (!g.await(60, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("gate never reopened");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public Claim claim(ClaimRequest request) throws RegistryException {
        passGate();
        return delegate.claim(request);
    }

    @Override
    public long extend(Claim claim, long untilMillis) throws RegistryException {
        passGate();
        try {
            return delegate.extend(claim, untilMillis);
        } catch (RegistryException e) {
            if (e.kind() == RegistryException.Kind.LEASE_LOST) {
                leaseLost = true;
            }
            throw e;
        }
    }

    @Override
    public void release(Claim claim, long finalHwmMillis) throws RegistryException {
        passGate();
        delegate.release(claim, finalHwmMillis);
    }

    @Override
    public List<WorkerRecord> list(String namespace) throws RegistryException {
        passGate();
        return delegate.list(namespace);
    }

    @Override
    public void close() {
        resume();
        delegate.close();
    }
}

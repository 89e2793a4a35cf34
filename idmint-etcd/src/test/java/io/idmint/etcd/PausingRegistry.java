package io.idmint.etcd;

import io.idmint.spi.Claim;
import io.idmint.spi.ClaimRequest;
import io.idmint.spi.RegistryException;
import io.idmint.spi.WorkerRecord;
import io.idmint.spi.WorkerRegistry;
import java.util.List;
import java.util.concurrent.CountDownLatch;

/**
 * A registry whose extend calls can be held back, as if the node's keepalive thread were stopped
 * (a GC or VM pause, SIGSTOP): the call reaches etcd only when {@link #resume()} is called.
 */
final class PausingRegistry implements WorkerRegistry {

    private final WorkerRegistry delegate;
    private volatile CountDownLatch gate = new CountDownLatch(0);
    private final CountDownLatch held = new CountDownLatch(1);

    PausingRegistry(WorkerRegistry delegate) {
        this.delegate = delegate;
    }

    void pause() {
        gate = new CountDownLatch(1);
    }

    void resume() {
        gate.countDown();
    }

    /** Waits until an extend call is being held back. */
    void awaitHeld() throws InterruptedException {
        if (!held.await(10, java.util.concurrent.TimeUnit.SECONDS)) {
            throw new AssertionError("no extend call within 10 s");
        }
    }

    @Override
    public Claim claim(ClaimRequest request) throws RegistryException {
        return delegate.claim(request);
    }

    @Override
    public long extend(Claim claim, long untilMillis) throws RegistryException {
        CountDownLatch g = gate;
        if (g.getCount() > 0) {
            held.countDown();
            try {
                g.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        return delegate.extend(claim, untilMillis);
    }

    @Override
    public void release(Claim claim, long finalHwmMillis) throws RegistryException {
        delegate.release(claim, finalHwmMillis);
    }

    @Override
    public List<WorkerRecord> list(String namespace) throws RegistryException {
        return delegate.list(namespace);
    }

    @Override
    public void close() {
        delegate.close();
    }
}

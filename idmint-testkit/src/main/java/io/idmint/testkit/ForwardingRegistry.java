package io.idmint.testkit;

import io.idmint.spi.Claim;
import io.idmint.spi.ClaimRequest;
import io.idmint.spi.RegistryException;
import io.idmint.spi.WorkerRecord;
import io.idmint.spi.WorkerRegistry;
import java.util.List;
import java.util.OptionalLong;

/**
 * A registry that passes every call to another: a test overrides the one call it makes
 * misbehave (hang, answer LEASE_LOST, …) and keeps the rest real.
 */
public class ForwardingRegistry implements WorkerRegistry {

    /** The registry every call not overridden goes to. */
    protected final WorkerRegistry delegate;

    public ForwardingRegistry(WorkerRegistry delegate) {
        this.delegate = delegate;
    }

    @Override
    public Claim claim(ClaimRequest request) throws RegistryException {
        return delegate.claim(request);
    }

    @Override
    public long extend(Claim claim, long untilMillis) throws RegistryException {
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
    public List<WorkerRecord> heldWorkers(String namespace) throws RegistryException {
        return delegate.heldWorkers(namespace);
    }

    @Override
    public OptionalLong storeTimeMillis() throws RegistryException {
        return delegate.storeTimeMillis();
    }

    @Override
    public void close() {
        delegate.close();
    }
}

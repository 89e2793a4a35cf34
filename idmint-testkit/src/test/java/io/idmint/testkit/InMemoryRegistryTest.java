package io.idmint.testkit;

import io.idmint.spi.Claim;
import io.idmint.spi.ClaimRequest;
import io.idmint.spi.WorkerRegistry;
import java.time.Duration;

class InMemoryRegistryTest extends WorkerRegistryContract {

    private final ManualTimeSource time = new ManualTimeSource(1_780_272_000_000L);
    private final InMemoryRegistry store = new InMemoryRegistry(time);

    @Override
    protected WorkerRegistry newClient() {
        return store;
    }

    @Override
    protected long clockMillis() {
        return time.currentTimeMillis();
    }

    @Override
    protected Claim awaitClaim(ClaimRequest request) throws Exception {
        time.advance(Duration.ofMillis(request.leaseTtlMillis() + 1));
        return super.awaitClaim(request);
    }
}

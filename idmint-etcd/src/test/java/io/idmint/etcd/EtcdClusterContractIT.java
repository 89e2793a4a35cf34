package io.idmint.etcd;

import io.idmint.spi.Claim;
import io.idmint.spi.ClaimRequest;
import io.idmint.spi.WorkerRegistry;
import io.idmint.testkit.WorkerRegistryContract;
import io.idmint.testkit.fixture.EtcdServer;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The registry contract against a real 3-member etcd cluster. */
class EtcdClusterContractIT extends WorkerRegistryContract {

    @RegisterExtension
    static final EtcdServer etcd = EtcdServer.sharedCluster();

    @Override
    protected WorkerRegistry newClient() {
        return EtcdTestStores.open(etcd);
    }

    /** A closed client's lease lives on for its TTL (30 s here); expire it instead of waiting. */
    @Override
    protected Claim awaitClaim(ClaimRequest request) throws Exception {
        EtcdTestStores.expireLeases(etcd, namespace);
        return connect().claim(request);
    }
}

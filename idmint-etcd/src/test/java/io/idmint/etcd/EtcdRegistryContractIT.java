package io.idmint.etcd;

import io.idmint.spi.Claim;
import io.idmint.spi.ClaimRequest;
import io.idmint.spi.WorkerRegistry;
import io.idmint.testkit.EtcdCluster;
import io.idmint.testkit.WorkerRegistryContract;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The registry contract against one real etcd member. */
class EtcdRegistryContractIT extends WorkerRegistryContract {

    private static EtcdCluster etcd;

    @BeforeAll
    static void startEtcd() {
        etcd = EtcdCluster.single();
    }

    @AfterAll
    static void stopEtcd() {
        etcd.close();
    }

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

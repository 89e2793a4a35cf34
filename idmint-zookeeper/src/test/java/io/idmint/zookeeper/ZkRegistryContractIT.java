package io.idmint.zookeeper;

import io.idmint.spi.WorkerRegistry;
import io.idmint.testkit.WorkerRegistryContract;
import io.idmint.testkit.fixture.ZkServer;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The testkit contract against a real ZooKeeper server. Each client is a registry with its own
 * session; closing one closes its session, so its ephemeral owner znodes go at once (the
 * default {@code awaitClaim} needs no wait).
 */
class ZkRegistryContractIT extends WorkerRegistryContract {

    @RegisterExtension
    static final ZkServer zk = ZkServer.shared();

    @Override
    protected WorkerRegistry newClient() {
        return ZkTesting.open(zk, "timeout=5s");
    }

    @Override
    protected boolean hasStoreClock() {
        return true;
    }
}

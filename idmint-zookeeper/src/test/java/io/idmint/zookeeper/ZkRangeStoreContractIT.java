package io.idmint.zookeeper;

import io.idmint.spi.RangeStore;
import io.idmint.testkit.RangeStoreContract;
import io.idmint.testkit.fixture.ZkServer;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The range store contract against a real ZooKeeper server; each client has its own session. */
class ZkRangeStoreContractIT extends RangeStoreContract {

    @RegisterExtension
    static final ZkServer zk = ZkServer.shared();

    @Override
    protected RangeStore newClient() {
        return ZkTesting.openRangeStore(zk, "timeout=5s");
    }
}

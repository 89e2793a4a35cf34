package io.idmint.etcd;

import io.idmint.spi.RangeStore;
import io.idmint.testkit.RangeStoreContract;
import io.idmint.testkit.fixture.EtcdServer;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The range store contract against one real etcd member. */
class EtcdRangeStoreContractIT extends RangeStoreContract {

    @RegisterExtension
    static final EtcdServer etcd = EtcdServer.shared();

    @Override
    protected RangeStore newClient() {
        return EtcdTestStores.openRangeStore(etcd, "5s");
    }
}

package io.idmint.etcd;

import io.idmint.spi.RangeStore;
import io.idmint.testkit.EtcdCluster;
import io.idmint.testkit.RangeStoreContract;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The range store contract against one real etcd member. */
class EtcdRangeStoreContractIT extends RangeStoreContract {

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
    protected RangeStore newClient() {
        return EtcdTestStores.openRangeStore(etcd, "5s");
    }
}

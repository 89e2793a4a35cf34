package io.idmint.zookeeper;

import io.idmint.spi.RangeStore;
import io.idmint.testkit.RangeStoreContract;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The range store contract against a real ZooKeeper server; each client has its own session. */
class ZkRangeStoreContractIT extends RangeStoreContract {

    private static TestingServer server;

    @BeforeAll
    static void startServer() throws Exception {
        server = ZkTesting.server();
    }

    @AfterAll
    static void stopServer() throws Exception {
        server.close();
    }

    @Override
    protected RangeStore newClient() {
        return ZkTesting.openRangeStore(server.getConnectString(), "timeout=5s");
    }
}

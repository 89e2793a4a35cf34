package io.idmint.zookeeper;

import io.idmint.spi.WorkerRegistry;
import io.idmint.testkit.WorkerRegistryContract;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The testkit contract against a real ZooKeeper server. Each client is a registry with its own
 * session; closing one closes its session, so its ephemeral owner znodes go at once (the
 * default {@code awaitClaim} needs no wait).
 */
class ZkRegistryContractIT extends WorkerRegistryContract {

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
    protected WorkerRegistry newClient() {
        return ZkTesting.open(server.getConnectString(), "timeout=5s");
    }

    @Override
    protected boolean hasStoreClock() {
        return true;
    }
}

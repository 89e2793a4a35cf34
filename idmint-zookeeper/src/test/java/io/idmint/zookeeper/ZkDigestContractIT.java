package io.idmint.zookeeper;

import io.idmint.spi.RangeStore;
import io.idmint.spi.WorkerRegistry;
import io.idmint.testkit.RangeStoreContract;
import io.idmint.testkit.WorkerRegistryContract;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;

/**
 * The registry and range store contracts once with {@code auth=digest}: every znode carries the
 * digest ACL, and nothing idmint does needs more than its own user.
 */
class ZkDigestContractIT {

    private static TestingServer server;
    private static String options;

    @BeforeAll
    static void start() throws Exception {
        server = ZkTesting.server();
        Path password = Files.createTempFile("idmint-zk-digest-", ".password");
        Files.writeString(password, "contract-pw\n");
        password.toFile().deleteOnExit();
        options = "timeout=5s&auth=digest&user=idmint&password-file=" + password;
    }

    @AfterAll
    static void stop() throws Exception {
        server.close();
    }

    @Nested
    class Registry extends WorkerRegistryContract {

        @Override
        protected WorkerRegistry newClient() {
            return ZkTesting.open(server.getConnectString(), options);
        }

        @Override
        protected boolean hasStoreClock() {
            return true; // the clock znode is written under the digest user's ACL too
        }
    }

    @Nested
    class Ranges extends RangeStoreContract {

        @Override
        protected RangeStore newClient() {
            return ZkTesting.openRangeStore(server.getConnectString(), options);
        }
    }
}

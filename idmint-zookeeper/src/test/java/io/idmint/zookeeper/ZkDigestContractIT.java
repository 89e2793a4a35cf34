package io.idmint.zookeeper;

import io.idmint.spi.RangeStore;
import io.idmint.spi.WorkerRegistry;
import io.idmint.testkit.RangeStoreContract;
import io.idmint.testkit.WorkerRegistryContract;
import io.idmint.testkit.fixture.ZkServer;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The registry and range store contracts once with {@code auth=digest}: every znode carries the
 * digest ACL, and nothing idmint does needs more than its own user.
 */
class ZkDigestContractIT {

    @RegisterExtension
    static final ZkServer zk = ZkServer.shared();

    private static String options;

    @BeforeAll
    static void start() throws Exception {
        Path password = Files.createTempFile("idmint-zk-digest-", ".password");
        Files.writeString(password, "contract-pw\n");
        password.toFile().deleteOnExit();
        options = "timeout=5s&auth=digest&user=idmint&password-file=" + password;
    }

    @Nested
    class Registry extends WorkerRegistryContract {

        @Override
        protected WorkerRegistry newClient() {
            return ZkTesting.open(zk, options);
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
            return ZkTesting.openRangeStore(zk, options);
        }
    }
}

package io.idmint.etcd;

import io.idmint.WorkerRegistries;
import io.idmint.spi.WorkerRegistry;
import io.idmint.testkit.StoreOutageContract;
import io.idmint.testkit.fixture.EtcdServer;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The store outage contract on a real 3-member etcd cluster of its own, every member stopped
 * and started again on its data; etcd calls time out after 2 s.
 */
class EtcdStoreOutageIT extends StoreOutageContract {

    @RegisterExtension
    static final EtcdServer etcd = EtcdServer.dedicated(3);

    @Override
    protected WorkerRegistry registry() {
        return WorkerRegistries.open(etcd.uri("2s"), Path.of("unused"));
    }

    @Override
    protected void stopStore() {
        etcd.cluster().stopAll();
    }

    /** Waits until the cluster serves again. */
    @Override
    protected void restartStore() {
        etcd.cluster().restartAll();
    }

    /**
     * Longer than the etcd call timeout (2 s): the release and the lease revoke sent when the
     * worker was given up have failed for good. Its owner key then comes back with etcd for
     * another TTL, and the node takes it over rather than a fresh worker (docs/registries.md,
     * "etcd: the worker after a whole-store outage").
     */
    @Override
    protected Duration downAfterGivingUp() {
        return Duration.ofSeconds(3);
    }

    @Override
    protected Duration readyAgainWithin() {
        return Duration.ofSeconds(30);
    }
}

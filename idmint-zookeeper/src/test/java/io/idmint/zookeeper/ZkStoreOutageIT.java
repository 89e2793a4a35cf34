package io.idmint.zookeeper;

import io.idmint.Layout;
import io.idmint.spi.WorkerRegistry;
import io.idmint.testkit.StoreOutageContract;
import io.idmint.testkit.fixture.ZkServer;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The store outage contract on a ZooKeeper server of its own, stopped and restarted on its data.
 * The session (10 s) outlives the outage, so the owner znode the failed release left behind is
 * still there, in the registry's own live session: the re-claim must delete it, or the pool (of
 * one worker) stays full; and it is back well before the session could expire.
 */
class ZkStoreOutageIT extends StoreOutageContract {

    @RegisterExtension
    static final ZkServer zk = ZkServer.dedicated();

    @Override
    protected WorkerRegistry registry() {
        return ZkTesting.open(zk, "session=10s&timeout=1s");
    }

    @Override
    protected Layout layout() {
        return Layout.parse("time=41,sequence=12");
    }

    @Override
    protected void stopStore() throws Exception {
        zk.server().stop();
    }

    @Override
    protected void restartStore() throws Exception {
        zk.server().restart();
    }
}

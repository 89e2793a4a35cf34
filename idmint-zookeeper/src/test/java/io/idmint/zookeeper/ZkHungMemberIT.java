package io.idmint.zookeeper;

import io.idmint.GeneratorListener;
import io.idmint.IdGenerator;
import io.idmint.Layout;
import io.idmint.Snowflake;
import io.idmint.testkit.HungMemberContract;
import io.idmint.testkit.fixture.ZkServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.curator.test.InstanceSpec;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The hung member contract on a 3-server ensemble of its own, in this JVM, each server behind a
 * {@link FreezableProxy}: a hung member is its proxy frozen (connections stay open and answer
 * nothing, as SIGSTOP would make it). With a 6 s store timeout and {@code timeout=1s}
 * (ZooKeeper's request timeout), the client drops the silent connection, reconnects to another
 * member within its session, and the node keeps its worker. Timings: lease TTL 8 s (the
 * session), keepalive 1 s, reservation 3 s.
 */
class ZkHungMemberIT extends HungMemberContract {

    @RegisterExtension
    final ZkServer zk = ZkServer.ensemble(3);

    private final List<FreezableProxy> proxies = new ArrayList<>();

    /** Proxies close after the generators (the contract closes in reverse order). */
    @BeforeEach
    void startProxies() throws Exception {
        for (InstanceSpec s : zk.cluster().getInstances()) {
            proxies.add(closeLater(new FreezableProxy(s.getPort())));
        }
    }

    @Override
    protected IdGenerator generator(GeneratorListener listener) {
        String connect = proxies.stream().map(p -> "127.0.0.1:" + p.port())
                .collect(Collectors.joining(","));
        // Routing around the hung member takes the request timeout, up to 1 s of the ZooKeeper
        // client's random delay before it reconnects, and the reconnect; the next renewal
        // (every keepalive) must then land within the store timeout of the last one answered.
        ZkRegistry registry = closeLater(ZkTesting.open(connect, zk.chroot(), "timeout=1s",
                Path.of("unused")));
        return Snowflake.newBuilder().registry(registry).namespace("hung")
                .layout(Layout.SNOWFLAKE).leaseTtl(Duration.ofSeconds(8))
                .keepaliveInterval(Duration.ofSeconds(1)).storeTimeout(Duration.ofSeconds(6))
                .reservationWindow(Duration.ofSeconds(3)).listener(listener).build();
    }

    /** The member whose proxy carries the client's connection. */
    @Override
    protected int memberInUse(IdGenerator generator) {
        for (int i = 0; i < proxies.size(); i++) {
            if (proxies.get(i).connected()) {
                return i;
            }
        }
        throw new AssertionError("no connection through any proxy");
    }

    @Override
    protected void hang(int member) {
        proxies.get(member).freeze();
    }

    @Override
    protected void resume(int member) {
        proxies.get(member).thaw();
    }
}

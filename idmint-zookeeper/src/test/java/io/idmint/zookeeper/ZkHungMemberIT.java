package io.idmint.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import io.idmint.GeneratorListener;
import io.idmint.IdGenerator;
import io.idmint.Layout;
import io.idmint.LeaseState;
import io.idmint.Snowflake;
import io.idmint.testkit.IdOracle;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The ensemble member a node is connected to hangs for 8 s (its connection stays open and
 * answers nothing: {@link FreezableProxy}, as SIGSTOP would make it, for servers that run in
 * this JVM). With a 4 s store timeout and {@code timeout=2s} (ZooKeeper's request timeout), the
 * client drops the silent connection, reconnects to another member within its session, and the
 * node keeps its worker. Timings: lease TTL 6 s (the session), keepalive 1 s, reservation 3 s.
 */
class ZkHungMemberIT {

    private final List<String> transitions = Collections.synchronizedList(new ArrayList<>());
    private final List<FreezableProxy> proxies = new ArrayList<>();
    private final List<AutoCloseable> toClose = new ArrayList<>();
    private TestingCluster cluster;

    @BeforeEach
    void start() throws Exception {
        cluster = ZkTesting.cluster(3);
        for (InstanceSpec s : cluster.getInstances()) {
            proxies.add(new FreezableProxy(s.getPort()));
        }
    }

    @AfterEach
    void stop() throws Exception {
        for (int i = toClose.size() - 1; i >= 0; i--) {
            toClose.get(i).close();
        }
        for (FreezableProxy p : proxies) {
            p.close();
        }
        cluster.close();
    }

    @Test
    void connectedMemberHungForEightSeconds_nodeKeepsItsWorker() throws Exception {
        String connect = proxies.stream().map(p -> "127.0.0.1:" + p.port())
                .collect(Collectors.joining(","));
        // Routing around the hung member takes the request timeout, up to 1 s of the ZooKeeper
        // client's random delay before it reconnects, and the reconnect; the next renewal
        // (every keepalive) must then land within the store timeout of the last one answered.
        ZkRegistry registry = ZkTesting.open(connect, "timeout=1s");
        toClose.add(registry);
        IdGenerator g = Snowflake.newBuilder().registry(registry).namespace("hung")
                .layout(Layout.SNOWFLAKE).leaseTtl(Duration.ofSeconds(8))
                .keepaliveInterval(Duration.ofSeconds(1)).storeTimeout(Duration.ofSeconds(6))
                .reservationWindow(Duration.ofSeconds(3))
                .listener(new GeneratorListener() {
                    @Override
                    public void onStateChange(LeaseState from, LeaseState to, String detail) {
                        transitions.add(from + " -> " + to + ": " + detail);
                    }
                }).build();
        toClose.add(g);
        Minter ids = new Minter("hung", g);
        toClose.add(ids);
        ZkTesting.await("it mints", 10_000, () -> ids.count() > 100);
        // Taken once it mints: on a loaded machine the first call can miss the 1 s timeout, and
        // the worker is then claimed by the maintenance loop a moment after build().
        int worker = g.status().workerId();
        FreezableProxy hung = proxies.stream().filter(FreezableProxy::connected).findFirst()
                .orElseThrow();
        transitions.clear();

        hung.freeze();
        long end = System.nanoTime() + Duration.ofSeconds(8).toNanos();
        try {
            while (System.nanoTime() < end) {
                assertThat(g.status().workerId()).as("worker; transitions %s", transitions)
                        .isEqualTo(worker);
                assertThat(transitions).noneMatch(t -> t.contains("-> LOST"));
                Thread.sleep(20);
            }
        } finally {
            hung.thaw();
        }
        int before = ids.count();
        ZkTesting.await("it mints after the member is back", 10_000,
                () -> ids.count() > before + 1000 && g.status().ready());
        ids.close();
        IdOracle.assertStrictlyIncreasing(ids.ids());
        assertThat(g.status().workerId()).isEqualTo(worker);
        assertThat(transitions).as("lease transitions").noneMatch(t -> t.contains("-> LOST")
                || t.contains("-> ACQUIRING"));
        System.out.println("zk hung member: " + ids.count() + " IDs, " + ids.refused()
                + " refused, transitions " + transitions);
    }
}

package io.idmint.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idmint.spi.Range;
import io.idmint.spi.RangeStore;
import io.idmint.spi.RegistryException;
import io.idmint.spi.RegistryException.Kind;
import io.idmint.testkit.IdOracle;
import io.idmint.testkit.fixture.ZkServer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The ZooKeeper range store with real faults (the server stopped and restarted on its data, an
 * ensemble's leader killed while clients allocate) and what it keeps in ZooKeeper.
 */
class ZkRangeStoreIT {

    /** Its own server: a test stops and restarts it. */
    @RegisterExtension
    static final ZkServer zk = ZkServer.dedicated();

    private final String tag = "t" + UUID.randomUUID().toString().substring(0, 8);
    private final List<AutoCloseable> opened = Collections.synchronizedList(new ArrayList<>());

    @AfterEach
    void cleanUp() throws Exception {
        for (AutoCloseable c : opened) {
            c.close();
        }
    }

    private RangeStore client(String connectString) {
        RangeStore s = ZkTesting.openRangeStore(connectString + zk.chroot(), "timeout=2s");
        opened.add(s);
        return s;
    }

    private RangeStore client() {
        return client(zk.connectString());
    }

    /** The store's own Curator client, started by its first call. */
    private static CuratorFramework curator(RangeStore s) {
        return ZkTesting.client(((ZkRangeStore) s).session());
    }

    @Test
    void allocate_serverDown_isUnavailable_thenGoesOnAboveEverythingBefore() throws Exception {
        RangeStore s = client();
        s.create(tag, 1, 10);
        List<Range> before = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            before.add(s.allocate(tag, 100));
        }
        long top = IdOracle.assertDisjointRanges(before);

        zk.server().stop();
        long start = System.nanoTime();
        assertUnavailable(() -> s.allocate(tag, 100));
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));

        zk.server().restart();
        Range[] after = new Range[1];
        ZkTesting.await("allocations succeed again", 30_000, () -> {
            try {
                after[0] = s.allocate(tag, 100);
                return true;
            } catch (RegistryException e) {
                return false;
            }
        });
        assertThat(after[0].start()).isGreaterThanOrEqualTo(top);
        assertThat(client().allocate(tag, 100).start()).isGreaterThanOrEqualTo(after[0].end());
    }

    @Test
    void allocate_ensembleLeaderKilledMidAllocations_rangesStayDisjoint_andGoOn()
            throws Exception {
        try (TestingCluster cluster = ZkServer.startEnsemble(3)) {
            String cs = cluster.getConnectString();
            client(cs).create(tag, 1, 10);
            int threads = 4;
            List<Range> ranges = Collections.synchronizedList(new ArrayList<>());
            AtomicInteger unavailable = new AtomicInteger();
            AtomicBoolean stop = new AtomicBoolean();
            ExecutorService pool = Executors.newFixedThreadPool(threads);
            List<Future<?>> workers = new ArrayList<>();
            try {
                for (int t = 0; t < threads; t++) {
                    RangeStore s = client(cs);
                    int seed = t;
                    workers.add(pool.submit(() -> {
                        for (int i = 0; !stop.get(); i++) {
                            try {
                                ranges.add(s.allocate(tag, 1 + (seed * 31 + i) % 17));
                            } catch (RegistryException e) {
                                assertThat(e.kind()).as(e.getMessage())
                                        .isEqualTo(Kind.UNAVAILABLE);
                                unavailable.incrementAndGet();
                                Thread.sleep(20); // suspended: every call fails at once
                            }
                        }
                        return null;
                    }));
                }
                ZkTesting.await("allocations run", 10_000, () -> ranges.size() > 200);
                InstanceSpec leader = ZkTesting.leader(cluster);
                assertThat(cluster.killServer(leader)).isTrue();
                int atKill = ranges.size();
                ZkTesting.await("allocations go on after the leader died", 60_000,
                        () -> ranges.size() > atKill + 500);
            } finally {
                stop.set(true);
                pool.shutdown();
            }
            for (Future<?> f : workers) {
                f.get(30, TimeUnit.SECONDS);
            }
            long top = IdOracle.assertDisjointRanges(ranges);
            assertThat(client(cs).allocate(tag, 1).start()).isGreaterThanOrEqualTo(top);
            System.out.println("ZooKeeper leader kill: " + ranges.size() + " ranges, "
                    + unavailable.get() + " allocations UNAVAILABLE");
            for (AutoCloseable c : opened) {
                c.close(); // before the cluster goes
            }
            opened.clear();
        }
    }

    @Test
    void create_storesNextAndStep_inZnodeUnderSegments_andAllocateMovesNext() throws Exception {
        RangeStore s = client();
        s.create(tag, 7, 100);
        s.allocate(tag, RangeStore.TAG_STEP);
        s.allocate(tag, 3);
        byte[] data = curator(s).getData().forPath(zk.chroot() + "/segments/" + tag);
        assertThat(new String(data, StandardCharsets.UTF_8)).isEqualTo("110 100");
    }

    @Test
    void allocate_unreadableValue_isCorrupt_andTagsToo() throws Exception {
        RangeStore s = client();
        s.create(tag, 1, 10);
        curator(s).setData().forPath(zk.chroot() + "/segments/" + tag,
                "12x 10".getBytes(StandardCharsets.UTF_8));
        assertThatThrownBy(() -> s.allocate(tag, 1))
                .isInstanceOf(RegistryException.class)
                .hasMessageContaining("/segments/" + tag).hasMessageContaining("'12x 10'")
                .extracting(e -> ((RegistryException) e).kind()).isEqualTo(Kind.CORRUPT);
        assertThatThrownBy(s::tags)
                .isInstanceOf(RegistryException.class)
                .extracting(e -> ((RegistryException) e).kind()).isEqualTo(Kind.CORRUPT);
    }

    @Test
    void registry_namespaceSegments_isRejected_soItCannotMixWithTags() {
        ZkRegistry registry = ZkTesting.open(zk, "timeout=2s");
        opened.add(registry);
        assertThatThrownBy(() -> registry.list("segments"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'segments'");
    }

    @Test
    void tagsThatAreNoZnodeNames_areRejected() {
        RangeStore s = client();
        assertThatThrownBy(() -> s.create("..", 1, 10))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'..'");
        assertThatThrownBy(() -> s.allocate("a/b", 1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'a/b'");
    }

    @Test
    void open_badUri_isIllegalArgument_namingTheBadPart() {
        assertThatThrownBy(() -> ZkTesting.openRangeStore("h:1/x/idmint-it", "color=red"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'color'");
        assertThatThrownBy(() -> ZkTesting.openRangeStore("h:99999/idmint-it", ""))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("99999");
    }

    private static void assertUnavailable(ThrowingCallable call) {
        assertThatThrownBy(call).isInstanceOf(RegistryException.class)
                .extracting(e -> ((RegistryException) e).kind()).isEqualTo(Kind.UNAVAILABLE);
    }
}

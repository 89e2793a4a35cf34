package io.idmint.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idmint.IdGenerator;
import io.idmint.IdUnavailableException;
import io.idmint.Layout;
import io.idmint.Snowflake;
import io.idmint.spi.Claim;
import io.idmint.spi.ClaimRequest;
import io.idmint.spi.RegistryException;
import io.idmint.spi.RegistryException.Kind;
import io.idmint.testkit.IdOracle;
import io.idmint.testkit.ManualTimeSource;
import io.idmint.testkit.TestTime;
import io.idmint.testkit.fixture.ZkServer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.zookeeper.CreateMode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * idmint next to Meituan Leaf on one ZooKeeper ({@code leaf-name=}): the Leaf nodes here are
 * written exactly as Leaf's SnowflakeZookeeperHolder writes them (a persistent sequential znode
 * {@code /snowflake/NAME/forever/IP:PORT-} with Jackson's {@code {"ip","port","timestamp"}}).
 */
class ZkLeafModeIT {

    @RegisterExtension
    static final ZkServer zk = ZkServer.shared();

    private static CuratorFramework leafSide;
    private static String chroot;

    @TempDir
    Path dirs;

    private final String leafName = "leaf" + UUID.randomUUID().toString().substring(0, 8);
    private final String ns = "l" + UUID.randomUUID().toString().substring(0, 8);
    private final List<ZkRegistry> opened = new ArrayList<>();

    @BeforeAll
    static void start() throws Exception {
        chroot = zk.chroot();
        leafSide = CuratorFrameworkFactory.newClient(zk.connectString(),
                new RetryOneTime(100));
        leafSide.start();
        leafSide.blockUntilConnected();
    }

    @AfterAll
    static void stop() throws Exception {
        leafSide.close();
    }

    @AfterEach
    void closeClients() {
        opened.forEach(ZkRegistry::close);
    }

    /** A registry of a new node (its own data directory). */
    private ZkRegistry open() {
        return open(chroot, dirs.resolve("node" + opened.size()), "");
    }

    /** A registry of the node whose data directory is {@code dataDir}, under {@code chroot}. */
    private ZkRegistry open(String chroot, Path dataDir, String options) {
        ZkRegistry r = ZkTesting.open(zk.connectString(), chroot,
                "leaf-name=" + leafName + (options.isEmpty() ? "" : "&" + options), dataDir);
        opened.add(r);
        return r;
    }

    private String forever() {
        return "/snowflake/" + leafName + "/forever";
    }

    /** A Leaf node's first start: its worker ID is the sequence number ZooKeeper gives it. */
    private int leafNode(String ip, int port, long timestamp) throws Exception {
        String json = "{\"ip\":\"" + ip + "\",\"port\":\"" + port + "\",\"timestamp\":"
                + timestamp + "}";
        String path = leafSide.create().creatingParentsIfNeeded()
                .withMode(CreateMode.PERSISTENT_SEQUENTIAL)
                .forPath(forever() + "/" + ip + ":" + port + "-",
                        json.getBytes(StandardCharsets.UTF_8));
        return Integer.parseInt(path.split("-")[1]);
    }

    /** Leaf's own reading of the directory at start (its init): ip:port to worker ID. */
    private Map<String, Integer> leafReads() throws Exception {
        Map<String, Integer> nodeMap = new HashMap<>();
        for (String key : leafSide.getChildren().forPath(forever())) {
            String[] nodeKey = key.split("-");
            nodeMap.put(nodeKey[0], Integer.parseInt(nodeKey[1]));
        }
        return nodeMap;
    }

    private ClaimRequest request(String layoutSpec, int preferred) {
        return new ClaimRequest(ns, layoutSpec, 0, "", 1023, preferred, 30_000, "it");
    }

    /**
     * A Leaf claim in {@code namespace} with a 1 ms lease TTL: every reservation never claimed
     * in that namespace counts as abandoned, so only whose reservation it is keeps it apart.
     */
    private static ClaimRequest abandoning(String namespace, int preferred) {
        return new ClaimRequest(namespace, Layout.LEAF.spec(), 0, "", 1023, preferred, 1, "it");
    }

    /** Spins until the clock is past {@code createdMillis} + 1: a 1 ms lease TTL has passed. */
    private static void pastOneMillisecond(long createdMillis) {
        while (System.currentTimeMillis() <= createdMillis + 1) {
            Thread.onSpinWait();
        }
    }

    /** A reservation as a node of {@code deployment} makes it; returns its number. */
    private int reserveAs(String deployment, String node) throws Exception {
        String data = "{\"ip\":\"" + deployment + "\",\"port\":\"" + node
                + "\",\"timestamp\":" + System.currentTimeMillis() + "}";
        String path = leafSide.create().creatingParentsIfNeeded()
                .withMode(CreateMode.PERSISTENT_SEQUENTIAL)
                .forPath(forever() + "/" + LeafWorkers.RESERVATION + "-",
                        data.getBytes(StandardCharsets.UTF_8));
        return Integer.parseInt(path.substring(path.lastIndexOf('-') + 1));
    }

    private long createdMillis(int worker) throws Exception {
        return leafSide.checkExists().forPath(reservation(worker)).getCtime();
    }

    private String reservation(int worker) {
        return forever() + "/" + LeafWorkers.RESERVATION + "-" + String.format("%010d", worker);
    }

    @Test
    void claim_takesANumberNoLeafNodeHoldsOrWillBeGiven() throws Exception {
        long now = System.currentTimeMillis();
        assertThat(List.of(leafNode("10.0.0.1", 8080, now), leafNode("10.0.0.2", 8080, now),
                leafNode("10.0.0.3", 8080, now))).containsExactly(0, 1, 2);
        ZkRegistry a = open();
        ZkRegistry b = open();

        Claim first = a.claim(request(Layout.LEAF.spec(), -1));
        int laterLeaf = leafNode("10.0.0.4", 8080, now);
        Claim second = b.claim(request(Layout.LEAF.spec(), -1));

        assertThat(first.workerId()).isEqualTo(3);
        assertThat(laterLeaf).isEqualTo(4);
        assertThat(second.workerId()).isEqualTo(5);
        // Leaf still reads its directory, and no two registrations share a number.
        Map<String, Integer> read = leafReads();
        assertThat(read).containsEntry("10.0.0.4:8080", 4)
                .containsEntry(LeafWorkers.RESERVATION, 5);
        assertThat(leafSide.getChildren().forPath(forever())).hasSize(6);
        // A released reservation is claimed again rather than a new number taken.
        a.release(first, first.hwmMillis());
        assertThat(open().claim(request(Layout.LEAF.spec(), -1)).workerId()).isEqualTo(3);
        assertThat(leafSide.getChildren().forPath(forever())).hasSize(6);
    }

    /**
     * Eight idmint nodes claim while four Leaf nodes start: every worker ID is held once, by a Leaf
     * node or by an idmint worker, never both.
     */
    @Test
    void claim_racingLeafStarts_neverSharesAWorkerId() throws Exception {
        long now = System.currentTimeMillis();
        leafNode("10.0.0.1", 8080, now);
        List<ZkRegistry> registries = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            registries.add(open());
        }
        Map<Integer, String> holders = new ConcurrentHashMap<>();
        IdOracle.together(12, t -> {
            String who;
            int worker;
            if (t < 8) {
                worker = registries.get(t).claim(request(Layout.LEAF.spec(), -1)).workerId();
                who = "idmint " + t;
            } else {
                worker = leafNode("10.0.2." + t, 8080, now);
                who = "leaf " + t;
            }
            String before = holders.putIfAbsent(worker, who);
            assertThat(before).as("worker %d: %s and %s", worker, before, who).isNull();
        });

        assertThat(holders).hasSize(12).doesNotContainKey(0);
        assertThat(leafReads().values()).doesNotHaveDuplicates();
    }

    /**
     * A reservation never claimed (its creator died between creating it and claiming it) is left
     * to its creator while that could still be claiming, then taken by the next claim.
     */
    @Test
    void claim_reservationNeverClaimed_isTakenOnceALeaseTtlOld() throws Exception {
        int orphan = reserveAs(chroot + "/" + ns, UUID.randomUUID().toString());
        long created = createdMillis(orphan);
        ZkRegistry r = open(chroot, dirs.resolve("node"), "session=30s");

        assertThat(r.claim(request(Layout.LEAF.spec(), -1)).workerId()).isEqualTo(1);
        pastOneMillisecond(created);
        assertThat(r.claim(abandoning(ns, -1)).workerId()).isZero();
    }

    /**
     * Regression: a reservation is its deployment's (chroot and namespace), never another's,
     * whether its owner holds it, released it, or never claimed it; even from one node (one data
     * directory) serving two namespaces. Else two deployments, whose owner and HWM znodes never
     * meet, would mint with one worker ID.
     */
    @Test
    void claim_anotherDeploymentsReservation_isHeldLikeALeafNodes() throws Exception {
        Path node = dirs.resolve("node");
        ZkRegistry a = open(chroot, node, "session=30s");
        Claim held = a.claim(request(Layout.LEAF.spec(), -1));
        Claim released = a.claim(request(Layout.LEAF.spec(), -1));
        a.release(released, released.hwmMillis());
        int neverClaimed = reserveAs(chroot + "/" + ns, UUID.randomUUID().toString());
        pastOneMillisecond(createdMillis(neverClaimed));

        ZkRegistry b = open(chroot, node, "session=30s");
        ZkRegistry c = open(chroot + "-other", dirs.resolve("other"), "session=30s");
        int inOtherNamespace = b.claim(abandoning(ns + "b", released.workerId())).workerId();
        int underOtherChroot = c.claim(abandoning(ns, released.workerId())).workerId();

        assertThat(List.of(held.workerId(), released.workerId(), neverClaimed,
                inOtherNamespace, underOtherChroot)).containsExactly(0, 1, 2, 3, 4);
        assertThat(new String(leafSide.getData().forPath(reservation(3)),
                StandardCharsets.UTF_8)).startsWith("{\"ip\":\"" + chroot + "/" + ns + "b\","
                        + "\"port\":\"" + Files.readString(node.resolve(LeafWorkers.NODE_ID_FILE))
                                .trim() + "\",\"timestamp\":");
    }

    /**
     * Regression: eight deployments (two chroots, four namespaces) each claim four times at once
     * with a 1 ms lease TTL, on one Leaf name: no worker ID is claimed twice.
     */
    @Test
    void claim_deploymentsRacing_neverShareAWorkerId() throws Exception {
        List<ZkRegistry> registries = new ArrayList<>();
        for (int t = 0; t < 8; t++) {
            registries.add(open(t % 2 == 0 ? chroot : chroot + "-other", dirs.resolve("race" + t),
                    "session=30s"));
        }
        Map<Integer, String> holders = new ConcurrentHashMap<>();
        IdOracle.together(8, t -> {
            for (int k = 0; k < 4; k++) {
                int worker = registries.get(t).claim(abandoning(ns + (t / 2), -1)).workerId();
                String who = "deployment " + t + " claim " + k;
                String before = holders.putIfAbsent(worker, who);
                assertThat(before).as("worker %d: %s and %s", worker, before, who).isNull();
            }
        });

        assertThat(holders).hasSize(32);
        assertThat(leafSide.getChildren().forPath(forever())).hasSize(32);
    }

    /**
     * Regression: a node killed (-9) and restarted while its old session still holds its
     * reservation waits for that session to expire and takes its reservation again, using up no
     * number; a new node meanwhile reserves a new number at once.
     */
    @Test
    void claim_restartedWhileItsKilledSessionLives_waitsAndRetakesItsReservation()
            throws Exception {
        Path node = dirs.resolve("restarting");
        Claim before = open(chroot, node, "session=5s").claim(request(Layout.LEAF.spec(), -1));
        String owner = chroot + "/" + ns + "/dc/0/owner/" + before.workerId();
        ZkTesting.killWithoutClosing(ZkTesting.curator(opened.get(0)));

        Claim fresh = open(chroot, dirs.resolve("new"), "session=5s")
                .claim(request(Layout.LEAF.spec(), -1));
        assertThat(leafSide.checkExists().forPath(owner)).as("the killed run's owner znode")
                .isNotNull();
        List<String> reserved = leafSide.getChildren().forPath(forever());
        Claim after = open(chroot, node, "session=5s").claim(request(Layout.LEAF.spec(), -1));

        assertThat(fresh.workerId()).isEqualTo(before.workerId() + 1);
        assertThat(after.workerId()).isEqualTo(before.workerId());
        assertThat(after.hwmMillis()).isGreaterThanOrEqualTo(before.hwmMillis());
        assertThat(leafSide.getChildren().forPath(forever())).hasSameElementsAs(reserved)
                .hasSize(2);
    }

    @Test
    void claim_startsAboveLeafsLatestReportedTime() throws Exception {
        long now = System.currentTimeMillis();
        leafNode("10.0.0.1", 8080, now - 60_000);
        leafNode("10.0.0.2", 8080, now - 5_000);

        Claim c = open().claim(request(Layout.LEAF.spec(), -1));

        assertThat(c.hwmMillis()).isEqualTo(now - 5_000);
    }

    /**
     * Issue 36 item 3: a Leaf node whose clock runs 40 s ahead, reporting every 3 s as Leaf
     * does, once kept every new idmint node waiting for as long as it ran (each claim re-read its
     * latest report as the floor). Its report is believed only as far as ZooKeeper's clock when
     * it was written: a node on the right time is ready at once and mints at its own clock.
     */
    @Test
    void leafNodeAhead_ofZooKeepersClock_keepsNoIdmintNodeWaiting() throws Exception {
        long now = System.currentTimeMillis();
        int worker = leafNode("10.0.0.9", 8080, now + 40_000);
        String path = forever() + "/10.0.0.9:8080-" + String.format("%010d", worker);
        for (int report = 0; report < 3; report++) {
            long ahead = System.currentTimeMillis() + 40_000;
            leafSide.setData().forPath(path, ("{\"ip\":\"10.0.0.9\",\"port\":\"8080\","
                    + "\"timestamp\":" + ahead + "}").getBytes(StandardCharsets.UTF_8));
            long zkTime = leafSide.checkExists().forPath(path).getMtime();
            Claim c = open().claim(request(Layout.LEAF.spec(), -1));
            assertThat(c.hwmMillis()).as("no further than ZooKeeper's clock at the report")
                    .isEqualTo(zkTime).isLessThan(ahead - 30_000);
        }
        try (IdGenerator gen = Snowflake.newBuilder().layout(Layout.LEAF).registry(open())
                .namespace(ns).build()) {
            long id = gen.nextId(); // ready at once: no wait for the Leaf node's clock
            assertThat(Layout.LEAF.decode(id).timestampMillis())
                    .isBetween(now, System.currentTimeMillis());
        }
    }

    @Test
    void generator_waitsForItsClockToPassLeafsTime_thenMintsAboveIt() throws Exception {
        long now = System.currentTimeMillis();
        long leafTime = now;
        leafNode("10.0.0.1", 8080, leafTime);
        // This node's clock is 5 s behind Leaf's report (and so ZooKeeper's).
        ManualTimeSource clock = new ManualTimeSource(now - 5_000);
        try (IdGenerator gen = Snowflake.newBuilder().layout(Layout.LEAF).registry(open())
                .namespace(ns).timeSource(clock).build()) {
            assertThatThrownBy(gen::nextId).isInstanceOf(IdUnavailableException.class);

            clock.set(leafTime + 1);
            long id = awaitId(gen);

            assertThat(Layout.LEAF.decode(id).timestampMillis()).isGreaterThan(leafTime);
            assertThat(id).isGreaterThan(((leafTime - Layout.TWITTER_EPOCH_MILLIS) << 22)
                    | (1023L << 12) | 4095);
        }
    }

    private static long awaitId(IdGenerator gen) throws InterruptedException {
        long deadline = TestTime.deadline(Duration.ofSeconds(30));
        while (true) {
            try {
                return gen.nextId();
            } catch (IdUnavailableException e) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("no ID within 30 s; the generator: "
                            + gen.status(), e);
                }
                Thread.sleep(10); // polling the condition, not waiting for time to pass
            }
        }
    }

    @Test
    void claim_allNumbersHeld_refusesNamingThemAndLeavesNothingBehind() throws Exception {
        for (int i = 0; i < 1024; i++) {
            leafNode("10.0.1." + (i % 250), 8000 + i, 1);
        }

        assertThatThrownBy(() -> open().claim(request(Layout.LEAF.spec(), -1)))
                .isInstanceOfSatisfying(RegistryException.class,
                        e -> assertThat(e.kind()).isEqualTo(Kind.POOL_FULL))
                .hasMessageContaining("all 1024 worker IDs of Leaf '" + leafName + "' are held "
                        + "(1024 by Leaf nodes, 0 by idmint workers");
        assertThat(leafSide.getChildren().forPath(forever())).hasSize(1024);
    }

    @Test
    void claim_otherLayout_isRefused_andLeafBitsWithAnotherEpochAreNot() throws Exception {
        ZkRegistry r = open();

        assertThatThrownBy(() -> r.claim(request(Layout.SNOWFLAKE.spec(), -1)))
                .isInstanceOfSatisfying(RegistryException.class,
                        e -> assertThat(e.kind()).isEqualTo(Kind.CONFLICT))
                .hasMessageContaining("hold only in Leaf's layout");
        // Leaf's bits with another epoch (Leaf's twepoch is configurable) are fine.
        assertThat(r.claim(request("leaf,epoch=2020-01-01T00:00:00Z", -1)).workerId()).isZero();
    }

    @Test
    void claim_preferredWorker_isTakenOnlyWhenItIsAFreeReservation() throws Exception {
        long now = System.currentTimeMillis();
        leafNode("10.0.0.1", 8080, now); // 0
        ZkRegistry a = open();
        Claim one = a.claim(request(Layout.LEAF.spec(), -1)); // reserves 1
        Claim two = a.claim(request(Layout.LEAF.spec(), -1)); // reserves 2
        a.release(one, one.hwmMillis());
        a.release(two, two.hwmMillis());

        // A free reservation is taken when preferred; Leaf's worker 0 never is.
        assertThat(open().claim(request(Layout.LEAF.spec(), 2)).workerId()).isEqualTo(2);
        assertThat(open().claim(request(Layout.LEAF.spec(), 0)).workerId()).isEqualTo(1);
        assertThat(open().claim(request(Layout.LEAF.spec(), 0)).workerId()).isEqualTo(3);
    }
}

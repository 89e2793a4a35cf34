package io.idmint.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idmint.Layout;
import io.idmint.spi.Claim;
import io.idmint.spi.ClaimRequest;
import io.idmint.spi.RegistryException;
import io.idmint.spi.RegistryException.Kind;
import io.idmint.spi.WorkerRecord;
import io.idmint.testkit.fixture.ZkServer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.KillSession;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** ZooKeeper specifics: fencing by the HWM version, sessions, lost answers, the znode layout. */
class ZkRegistryIT {

    @RegisterExtension
    static final ZkServer zk = ZkServer.shared();

    private static CuratorFramework admin;

    private final String ns = "z" + UUID.randomUUID().toString().substring(0, 8);
    private final List<ZkRegistry> opened = new ArrayList<>();

    @BeforeAll
    static void start() throws Exception {
        admin = CuratorFrameworkFactory.newClient(zk.connectString(), new RetryOneTime(100));
        admin.start();
        admin.blockUntilConnected();
    }

    @AfterAll
    static void stop() throws Exception {
        admin.close();
    }

    @AfterEach
    void closeClients() {
        opened.forEach(ZkRegistry::close);
    }

    private ZkRegistry open(String options) {
        ZkRegistry r = ZkTesting.open(zk, options);
        opened.add(r);
        return r;
    }

    private ClaimRequest poolOfOne(String holder) {
        return new ClaimRequest(ns, "time=41,sequence=12", 0, "dc-a", 0, -1, 30_000, holder);
    }

    private String base() {
        return zk.chroot() + "/" + ns + "/dc/0";
    }

    @Test
    void claim_writesTheDocumentedZnodes() throws Exception {
        ZkRegistry r = open("");
        Claim c = r.claim(poolOfOne("host-a/1"));
        assertThat(text(zk.chroot() + "/" + ns + "/layout")).isEqualTo("time=41,sequence=12");
        assertThat(text(base() + "/name")).isEqualTo("dc-a");
        assertThat(text(base() + "/hwm/0")).isEqualTo("0");
        Stat hwm = admin.checkExists().forPath(base() + "/hwm/0");
        assertThat(hwm.getEphemeralOwner()).as("HWM znode is persistent").isZero();
        assertThat((long) hwm.getVersion()).as("token = HWM version").isEqualTo(c.token());
        Stat owner = admin.checkExists().forPath(base() + "/owner/0");
        assertThat(owner.getEphemeralOwner()).as("owner znode is ephemeral")
                .isEqualTo(ZkTesting.curator(r).getZookeeperClient().getZooKeeper().getSessionId());
        assertThat(text(base() + "/owner/0")).endsWith(" host-a/1");
        long token = r.extend(c, 1_767_225_600_123L);
        assertThat(text(base() + "/hwm/0")).isEqualTo("1767225600123");
        assertThat(token).isEqualTo(admin.checkExists().forPath(base() + "/hwm/0").getVersion());
    }

    /**
     * The ABA case: the owner znode is deleted (here by hand, standing for an expired session)
     * and re-created by another claimer. It is version 0 both times, so it cannot fence; the HWM
     * znode's version moved with the new claim, so the first holder is fenced although its own
     * session never changed.
     */
    @Test
    void extend_afterOwnerRecreatedByAnother_isLeaseLost_byHwmVersion() throws Exception {
        ZkRegistry a = open("");
        Claim ca = a.claim(poolOfOne("a"));
        long tokenA = a.extend(ca, 50_000);
        Stat ownerA = admin.checkExists().forPath(base() + "/owner/0");
        long sessionA = ownerA.getEphemeralOwner();
        admin.delete().forPath(base() + "/owner/0");

        ZkRegistry b = open("");
        Claim cb = b.claim(poolOfOne("b"));
        assertThat(cb.workerId()).isEqualTo(ca.workerId());
        assertThat(cb.hwmMillis()).isEqualTo(50_000);
        Stat ownerB = admin.checkExists().forPath(base() + "/owner/0");
        assertThat(ownerB.getVersion()).as("owner version is no fence")
                .isEqualTo(ownerA.getVersion())
                .isZero();
        assertThat(ownerB.getEphemeralOwner()).isNotEqualTo(sessionA);
        assertThat(ZkTesting.curator(a).getZookeeperClient().getZooKeeper().getSessionId())
                .as("a's session is alive and unchanged").isEqualTo(sessionA);

        assertThatThrownBy(() -> a.extend(ca.withToken(tokenA), 60_000))
                .isInstanceOf(RegistryException.class)
                .hasMessageContaining("fencing token")
                .extracting(e -> ((RegistryException) e).kind()).isEqualTo(Kind.LEASE_LOST);
        assertThatThrownBy(() -> a.release(ca.withToken(tokenA), 40_000))
                .extracting(e -> ((RegistryException) e).kind()).isEqualTo(Kind.LEASE_LOST);
        assertThat(text(base() + "/hwm/0")).as("the fenced holder wrote nothing")
                .isEqualTo("50000");
        assertThat(admin.checkExists().forPath(base() + "/owner/0").getEphemeralOwner())
                .as("b's owner znode survives a's release").isEqualTo(ownerB.getEphemeralOwner());
        b.extend(cb, 70_000);
    }

    /** A session expires on the server, another node takes the worker: the old holder is fenced. */
    @Test
    void extend_afterSessionExpiredAndWorkerTaken_isLeaseLost() throws Exception {
        ZkRegistry a = open("");
        Claim ca = a.claim(poolOfOne("a"));
        long tokenA = a.extend(ca, 80_000);
        ZkTesting.expireOnServer(ZkTesting.curator(a), zk.connectString());

        ZkRegistry b = open("");
        Claim cb = b.claim(poolOfOne("b"));
        assertThat(cb.hwmMillis()).as("the new holder starts above the old reservation")
                .isEqualTo(80_000);
        Kind kind = extendUntilAnswered(a, ca.withToken(tokenA));
        assertThat(kind).isEqualTo(Kind.LEASE_LOST);
        assertThat(b.extend(cb, 90_000)).isNotEqualTo(cb.token());
    }

    /** The session expired and nobody took the worker: still LEASE_LOST, then a re-claim works. */
    @Test
    void extend_afterSessionExpired_isLeaseLost_andReclaimTakesItAgain() throws Exception {
        ZkRegistry a = open("");
        Claim ca = a.claim(poolOfOne("a"));
        long tokenA = a.extend(ca, 20_000);
        ZkTesting.expireOnServer(ZkTesting.curator(a), zk.connectString());
        assertThat(extendUntilAnswered(a, ca.withToken(tokenA))).isEqualTo(Kind.LEASE_LOST);
        Claim again = a.claim(poolOfOne("a"));
        assertThat(again.hwmMillis()).isEqualTo(20_000);
        assertThat(again.token()).isGreaterThan(tokenA);
    }

    /**
     * Curator's KillSession expires the session on the client only: the server keeps the old
     * session and its owner znode until the session timeout (30 s here). The registry knows the
     * owner znode is its own, so the next claim deletes it instead of waiting.
     */
    @Test
    void killSession_clientSide_reclaimDoesNotWaitForTheOldSession() throws Exception {
        ZkRegistry a = open("session=30s");
        Claim ca = a.claim(poolOfOne("a"));
        long oldSession = ZkTesting.curator(a).getZookeeperClient().getZooKeeper().getSessionId();
        KillSession.kill(ZkTesting.curator(a).getZookeeperClient().getZooKeeper());
        assertThat(extendUntilAnswered(a, ca)).isEqualTo(Kind.LEASE_LOST);
        long start = System.nanoTime();
        Claim again = claimUntilAnswered(a, poolOfOne("a"));
        assertThat((System.nanoTime() - start) / 1_000_000).isLessThan(10_000);
        assertThat(again.workerId()).isZero();
        assertThat(admin.checkExists().forPath(base() + "/owner/0").getEphemeralOwner())
                .isNotEqualTo(oldSession);
    }

    /** A write of ours that landed without its answer is recognised; anyone else's is not. */
    @Test
    void extend_afterOwnLostAnswer_goesOn_butNotAfterAForeignClaim() throws Exception {
        ZkRegistry a = open("");
        Claim ca = a.claim(poolOfOne("a"));
        // Our extend reached the server but the answer was lost: the version moved.
        admin.setData().withVersion((int) ca.token()).forPath(base() + "/hwm/0",
                "30000".getBytes(StandardCharsets.US_ASCII));
        a.answerLost(ca);
        long token = a.extend(ca, 20_000);
        assertThat(token).isEqualTo(ca.token() + 2);
        assertThat(text(base() + "/hwm/0")).as("never lowered").isEqualTo("30000");
        assertThatThrownBy(() -> a.extend(ca, 40_000)).as("the answered write is no excuse")
                .extracting(e -> ((RegistryException) e).kind()).isEqualTo(Kind.LEASE_LOST);

        Claim cur = ca.withToken(token);
        a.answerLost(cur);
        admin.delete().forPath(base() + "/owner/0");
        ZkRegistry b = open("");
        b.claim(poolOfOne("b"));
        assertThatThrownBy(() -> a.extend(cur, 50_000))
                .extracting(e -> ((RegistryException) e).kind()).isEqualTo(Kind.LEASE_LOST);
    }

    @Test
    void sessionTimeout_followsLeaseTtl_unlessTheUriSetsIt() throws Exception {
        ZkRegistry a = open("");
        a.claim(new ClaimRequest(ns, "time=41,sequence=12", 0, "", 0, -1, 3_000, "a"));
        assertThat(a.session().sessionTimeoutMillis(ZkTesting.curator(a))).isEqualTo(3_000);
        WorkerRecord rec = a.list(ns).get(0);
        assertThat(rec.leaseExpiresMillis() - System.currentTimeMillis()).isBetween(0L, 3_000L);

        ZkRegistry b = open("session=1500ms");
        b.claim(new ClaimRequest(ns, "time=41,sequence=12", 1, "", 0, -1, 30_000, "b"));
        assertThat(b.session().sessionTimeoutMillis(ZkTesting.curator(b))).isEqualTo(1_500);
    }

    @Test
    void claim_hugePool_findsAFreshWorkerWithoutScanningIt() throws Exception {
        ZkRegistry a = open("");
        ClaimRequest req = new ClaimRequest(ns, Layout.UID_GENERATOR.spec(), 0, "", (1 << 22) - 1,
                -1, 30_000, "a");
        assertThat(a.claim(req).workerId()).isZero();
        assertThat(a.claim(req).workerId()).isEqualTo(1);
    }

    @Test
    void claim_namespaceThatIsNoZnodeName_isIllegalArgument() {
        ZkRegistry a = open("");
        assertThatThrownBy(() -> a.claim(new ClaimRequest("..", "time=41,sequence=12", 0, "", 0,
                -1, 30_000, "a"))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'..'");
    }

    private static Kind extendUntilAnswered(ZkRegistry r, Claim c) throws InterruptedException {
        AtomicReference<Kind> kind = new AtomicReference<>();
        ZkTesting.await("an answer other than UNAVAILABLE to extend", 20_000, () -> {
            try {
                r.extend(c, 1);
                kind.set(null);
                return true;
            } catch (RegistryException e) {
                kind.set(e.kind());
                return e.kind() != Kind.UNAVAILABLE;
            }
        });
        return kind.get();
    }

    private static Claim claimUntilAnswered(ZkRegistry r, ClaimRequest req)
            throws InterruptedException {
        AtomicReference<Claim> got = new AtomicReference<>();
        ZkTesting.await("a claim", 20_000, () -> {
            try {
                got.set(r.claim(req));
                return true;
            } catch (RegistryException e) {
                assertThat(e.kind()).isEqualTo(Kind.UNAVAILABLE);
                return false;
            }
        });
        return got.get();
    }

    private static String text(String path) throws Exception {
        return new String(admin.getData().forPath(path), StandardCharsets.UTF_8);
    }
}

package io.idmint.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.PutOption;
import io.idmint.Layout;
import io.idmint.WorkerRegistries;
import io.idmint.spi.Claim;
import io.idmint.spi.ClaimRequest;
import io.idmint.spi.RegistryException;
import io.idmint.spi.RegistryException.Kind;
import io.idmint.spi.WorkerRecord;
import io.idmint.spi.WorkerRegistry;
import io.idmint.testkit.Poll;
import io.idmint.testkit.TestTime;
import io.idmint.testkit.fixture.EtcdServer;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Callable;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** What is particular to etcd: real lease expiry, the key layout, timeouts. */
class EtcdRegistryIT {

    /** Its own member: one test stops and restarts it. */
    @RegisterExtension
    static final EtcdServer etcd = EtcdServer.dedicated(1);
    private static EtcdStore admin;

    private final String namespace = "r" + UUID.randomUUID().toString().substring(0, 8);
    private final List<WorkerRegistry> opened = new ArrayList<>();

    @BeforeAll
    static void startEtcd() {
        admin = new EtcdStore(EtcdUri.parse(etcd.uri("5s")));
    }

    @AfterAll
    static void stopEtcd() {
        admin.close();
    }

    @AfterEach
    void closeClients() {
        opened.forEach(WorkerRegistry::close);
    }

    private WorkerRegistry connect() {
        WorkerRegistry r = EtcdTestStores.open(etcd);
        opened.add(r);
        return r;
    }

    private ClaimRequest request(int maxWorkerId, long ttlMillis) {
        return new ClaimRequest(namespace, Layout.SNOWFLAKE.spec(), 1, "", maxWorkerId, -1,
                ttlMillis, "it/" + ttlMillis);
    }

    private String key(String rest) {
        return etcd.prefix() + "/" + namespace + "/dc/1/" + rest;
    }

    private KeyValue stored(String rest) throws RegistryException {
        List<KeyValue> kvs = admin.get(key(rest)).getKvs();
        return kvs.isEmpty() ? null : kvs.get(0);
    }

    @Test
    void keys_hwmOutlivesHolders_ownerRidesTheLease_tokenIsHwmModRevision() throws Exception {
        WorkerRegistry r = connect();
        Claim c = r.claim(request(3, 5_000));
        KeyValue hwm = stored("hwm/" + c.workerId());
        KeyValue owner = stored("owner/" + c.workerId());
        assertThat(hwm.getLease()).isZero();
        assertThat(owner.getLease()).isNotZero();
        assertThat(EtcdStore.string(owner.getValue())).isEqualTo("it/5000");
        assertThat(hwm.getModRevision()).isEqualTo(c.token());
        assertThat(owner.getCreateRevision()).isEqualTo(c.token());
        long token = r.extend(c, 4_242);
        assertThat(stored("hwm/" + c.workerId()).getModRevision()).isEqualTo(token);
        assertThat(EtcdStore.string(stored("hwm/" + c.workerId()).getValue())).isEqualTo("4242");
        r.release(c.withToken(token), 4_000);
        assertThat(stored("owner/" + c.workerId())).isNull();
        assertThat(EtcdStore.string(stored("hwm/" + c.workerId()).getValue())).isEqualTo("4000");
        assertThat(admin.timeToLive(new long[] {owner.getLease()})[0]).as("lease revoked")
                .isNegative();
    }

    @Test
    void claim_leaseTtl_isRoundedUpToWholeSeconds() throws Exception {
        WorkerRegistry r = connect();
        Claim c = r.claim(request(0, 1_500));
        assertThat(c.leaseTtlMillis()).isEqualTo(2_000);
        WorkerRecord rec = r.list(namespace).get(0);
        assertThat(rec.leaseExpiresMillis() - System.currentTimeMillis())
                .isBetween(0L, 2_500L);
    }

    @Test
    void extend_afterLeaseExpiredAndWorkerReclaimed_isLeaseLost() throws Exception {
        WorkerRegistry zombie = connect();
        Claim old = zombie.claim(request(0, 1_000));
        long token = zombie.extend(old, 9_000);
        // No more renewals: etcd expires the lease after its 1 s TTL and the worker is free.
        WorkerRegistry next = connect();
        Claim taken = awaitClaim(next, request(0, 30_000));
        assertThat(taken.workerId()).isEqualTo(old.workerId());
        assertThat(taken.hwmMillis()).isEqualTo(9_000);
        assertLost(() -> zombie.extend(old.withToken(token), 20_000));
        assertLost(() -> zombie.release(old.withToken(token), 9_500));
        assertThat(next.list(namespace)).singleElement().satisfies(w -> {
            assertThat(w.hwmMillis()).isEqualTo(9_000);
            assertThat(w.holder()).isEqualTo("it/30000");
        });
        assertThat(next.extend(taken, 10_000)).isGreaterThan(taken.token());
    }

    @Test
    void extend_afterOwnLeaseExpired_isLeaseLost_evenWhenNobodyClaimed() throws Exception {
        WorkerRegistry r = connect();
        Claim c = r.claim(request(0, 1_000));
        long token = r.extend(c, 3_000);
        Poll.until(Duration.ofSeconds(10), "etcd expires the lease", () -> {
            try {
                return !r.list(namespace).get(0).held();
            } catch (RegistryException e) {
                throw new AssertionError(e);
            }
        });
        assertLost(() -> r.extend(c.withToken(token), 4_000));
        assertThat(r.list(namespace).get(0).hwmMillis()).isEqualTo(3_000);
        assertThat(connect().claim(request(0, 1_000)).hwmMillis()).isEqualTo(3_000);
    }

    @Test
    void release_neverBelowTheClaimTimeHwm() throws Exception {
        WorkerRegistry r = connect();
        Claim c = r.claim(request(0, 5_000));
        r.release(c.withToken(r.extend(c, 8_000)), 7_000);
        Claim again = r.claim(request(0, 5_000));
        assertThat(again.hwmMillis()).isEqualTo(7_000);
        r.release(again.withToken(r.extend(again, 9_000)), 1_000);
        assertThat(r.list(namespace).get(0).hwmMillis()).isEqualTo(7_000);
    }

    @Test
    void claim_unparsableHwm_isCorrupt() throws Exception {
        admin.txn("plant", new Cmp[] {new Cmp(EtcdStore.bytes(key("hwm/0")), Cmp.Op.EQUAL,
                CmpTarget.createRevision(0))}, new Op[] {Op.put(EtcdStore.bytes(key("hwm/0")),
                EtcdStore.bytes("soon"), PutOption.DEFAULT)}, new Op[0]);
        assertThatThrownBy(() -> connect().claim(request(3, 5_000)))
                .isInstanceOf(RegistryException.class).hasMessageContaining("'soon'")
                .extracting(e -> ((RegistryException) e).kind()).isEqualTo(Kind.CORRUPT);
    }

    @Test
    void releaseUnanswered_thisClientTakesTheWorkerOverAtOnce_noOtherClientCan()
            throws Exception {
        WorkerRegistry a = WorkerRegistries.open(etcd.uri("1s"), Path.of("."));
        opened.add(a);
        WorkerRegistry b = connect();
        Claim c = a.claim(request(3, 30_000));
        Claim reserved = c.withToken(a.extend(c, 5_000));
        long oldLease = stored("owner/" + c.workerId()).getLease();

        // etcd is down when the node gives the worker up: the release cannot be answered, and
        // the owner key comes back with etcd, on its lease, for another TTL.
        etcd.cluster().stopAll();
        assertThatThrownBy(() -> a.release(reserved, 5_000)).isInstanceOf(RegistryException.class)
                .extracting(e -> ((RegistryException) e).kind()).isEqualTo(Kind.UNAVAILABLE);
        etcd.cluster().restartAll();
        assertThat(stored("owner/" + c.workerId()).getLease()).isEqualTo(oldLease);

        ClaimRequest preferIt = new ClaimRequest(namespace, Layout.SNOWFLAKE.spec(), 1, "", 3,
                c.workerId(), 30_000, "it/again");
        // Each client's channel reconnects on its own backoff (grpc-java's: 1 s, then 1.6 s,
        // ...), so a claim right after the restart may still be UNAVAILABLE: retry it, well
        // within the owner key's TTL of 30 s, which is what this client must not wait for.
        Claim other = untilAnswered(() -> b.claim(preferIt));
        assertThat(other.workerId()).as("another client waits for the key's TTL")
                .isNotEqualTo(c.workerId());

        Claim again = untilAnswered(() -> a.claim(preferIt));
        assertThat(again.workerId()).isEqualTo(c.workerId());
        assertThat(again.hwmMillis()).as("above the reservation").isEqualTo(5_000);
        KeyValue owner = stored("owner/" + c.workerId());
        assertThat(owner.getLease()).isNotEqualTo(oldLease);
        assertThat(EtcdStore.string(owner.getValue())).isEqualTo("it/again");
        assertThat(stored("hwm/" + c.workerId()).getModRevision()).isEqualTo(again.token());
        assertThat(admin.timeToLive(new long[] {oldLease})[0]).as("old lease revoked")
                .isNegative();
        assertLost(() -> a.extend(reserved, 9_000));
        assertLost(() -> a.release(reserved, 9_000));

        // The new claim works as any: extend, release, and the worker is free to all.
        Claim held = again.withToken(a.extend(again, 7_000));
        a.release(held, 7_000);
        assertThat(stored("owner/" + c.workerId())).isNull();
        assertThat(b.claim(preferIt).workerId()).isEqualTo(c.workerId());
    }

    @Test
    void unreachableStore_isUnavailable_withinTheTimeout() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        try (WorkerRegistry r = WorkerRegistries.open("etcd://127.0.0.1:" + port
                + "/x?timeout=300ms", Path.of("."))) {
            long start = System.nanoTime();
            assertThatThrownBy(() -> r.claim(request(0, 5_000)))
                    .isInstanceOf(RegistryException.class)
                    .extracting(e -> ((RegistryException) e).kind()).isEqualTo(Kind.UNAVAILABLE);
            assertThatThrownBy(() -> r.list(namespace))
                    .isInstanceOf(RegistryException.class)
                    .extracting(e -> ((RegistryException) e).kind()).isEqualTo(Kind.UNAVAILABLE);
            assertThat(Duration.ofNanos(System.nanoTime() - start))
                    .isLessThan(Duration.ofSeconds(3));
        }
    }

    /** A claim retried while it is UNAVAILABLE, for up to 10 s. */
    private static Claim untilAnswered(Callable<Claim> claim) throws Exception {
        long deadline = TestTime.deadline(Duration.ofSeconds(10));
        for (;;) {
            try {
                return claim.call();
            } catch (RegistryException e) {
                if (e.kind() != Kind.UNAVAILABLE || System.nanoTime() > deadline) {
                    throw e;
                }
                Thread.sleep(100);
            }
        }
    }

    private static Claim awaitClaim(WorkerRegistry r, ClaimRequest request) throws Exception {
        long deadline = TestTime.deadline(Duration.ofSeconds(10));
        for (;;) {
            try {
                return r.claim(request);
            } catch (RegistryException e) {
                if (e.kind() != Kind.POOL_FULL || System.nanoTime() > deadline) {
                    throw e;
                }
                Thread.sleep(100);
            }
        }
    }

    private static void assertLost(ThrowingCallable call) {
        assertThatThrownBy(call).isInstanceOf(RegistryException.class)
                .extracting(e -> ((RegistryException) e).kind()).isEqualTo(Kind.LEASE_LOST);
    }
}

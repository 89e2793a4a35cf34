package io.idmint.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.etcd.jetcd.KeyValue;
import io.idmint.Layout;
import io.idmint.spi.Claim;
import io.idmint.spi.ClaimRequest;
import io.idmint.spi.RegistryException;
import io.idmint.spi.RegistryException.Kind;
import io.idmint.testkit.fixture.EtcdServer;
import java.time.Clock;
import java.util.UUID;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A write whose answer is lost (it committed, but the attempt timed out) must neither fence the
 * node that made it nor let a fenced node write: whether the registry sends it again itself, to
 * another member within the call, or the core calls again after an UNAVAILABLE.
 */
class EtcdInDoubtIT {

    @RegisterExtension
    static final EtcdServer etcd = EtcdServer.shared();

    private final String namespace = "d" + UUID.randomUUID().toString().substring(0, 8);
    private LosingAnswers store;
    private EtcdRegistry registry;

    @BeforeEach
    void open() {
        // Lost answers run out a 500 ms attempt; a call gives up after 2 s.
        store = new LosingAnswers(EtcdUri.parse(etcd.uri("2s")));
        registry = new EtcdRegistry(store, etcd.prefix(), Clock.systemUTC());
    }

    @AfterEach
    void close() {
        registry.close();
    }

    private Claim claim() throws RegistryException {
        return registry.claim(new ClaimRequest(namespace, Layout.SNOWFLAKE.spec(), 0, "", 0, -1,
                30_000, "in-doubt"));
    }

    private KeyValue hwm() throws RegistryException {
        return store.get(etcd.prefix() + "/" + namespace + "/dc/0/hwm/0").getKvs().get(0);
    }

    @Test
    void extend_attemptCommittedButAnswerLost_reSentAndRecognised() throws Exception {
        Claim c = claim();
        store.loseCommitted.set(1);
        int before = store.sent.get();
        long token = registry.extend(c, 50_000);
        // Committed and lost, sent again (the comparison fails on the token the first attempt
        // moved), then written again on top: one call, three attempts.
        assertThat(store.sent.get() - before).isEqualTo(3);
        assertThat(hwm().getModRevision()).isEqualTo(token);
        assertThat(EtcdStore.string(hwm().getValue())).isEqualTo("50000");
        assertThatThrownBy(() -> registry.extend(c, 60_000))
                .isInstanceOf(RegistryException.class)
                .extracting(e -> ((RegistryException) e).kind()).isEqualTo(Kind.LEASE_LOST);
        registry.extend(c.withToken(token), 60_000);
    }

    @Test
    void claim_attemptCommittedButAnswerLost_reSentAndWon() throws Exception {
        registry.release(claim(), 10_000); // the layout key exists: its write is not lost
        store.loseCommitted.set(1);
        Claim c = claim();
        assertThat(c.workerId()).as("its own worker, not another").isZero();
        assertThat(c.hwmMillis()).isEqualTo(10_000);
        assertThat(hwm().getModRevision()).isEqualTo(c.token());
        long token = registry.extend(c, 20_000);
        assertThat(EtcdStore.string(hwm().getValue())).isEqualTo("20000");
        registry.release(c.withToken(token), 20_000);
        assertThat(claim().workerId()).as("released: free again").isZero();
    }

    @Test
    void extend_afterAnExtendThatCommittedButTimedOut_goesOnFromTheStoredHwm() throws Exception {
        Claim c = claim();
        store.loseAll = true;
        assertUnavailable(() -> registry.extend(c, 50_000));
        store.loseAll = false;
        assertThat(hwm().getModRevision()).as("it did commit").isNotEqualTo(c.token());
        // The core keeps its old token and retries with a lower target: never lowered.
        long token = registry.extend(c, 40_000);
        assertThat(hwm().getModRevision()).isEqualTo(token);
        assertThat(EtcdStore.string(hwm().getValue())).isEqualTo("50000");
        // Only the write in doubt is forgiven: an old token is stale again.
        assertThatThrownBy(() -> registry.extend(c, 60_000))
                .isInstanceOf(RegistryException.class)
                .extracting(e -> ((RegistryException) e).kind()).isEqualTo(Kind.LEASE_LOST);
        registry.extend(c.withToken(token), 60_000);
    }

    @Test
    void release_afterAnExtendThatCommittedButTimedOut_releases() throws Exception {
        Claim c = claim();
        long token = registry.extend(c, 20_000);
        store.loseAll = true;
        assertUnavailable(() -> registry.extend(c.withToken(token), 50_000));
        store.loseAll = false;
        registry.release(c.withToken(token), 25_000);
        assertThat(EtcdStore.string(hwm().getValue())).isEqualTo("25000");
        assertThat(claim().hwmMillis()).isEqualTo(25_000);
    }

    @Test
    void extend_inDoubt_butWorkerTakenMeanwhile_isLeaseLost() throws Exception {
        Claim c = claim();
        store.loseAll = true;
        assertUnavailable(() -> registry.extend(c, 50_000));
        store.loseAll = false;
        EtcdTestStores.expireLeases(etcd, namespace);
        try (var other = EtcdTestStores.open(etcd)) {
            Claim taken = other.claim(new ClaimRequest(namespace, Layout.SNOWFLAKE.spec(), 0, "",
                    0, -1, 30_000, "other"));
            assertThat(taken.hwmMillis()).isEqualTo(50_000);
            assertThatThrownBy(() -> registry.extend(c, 60_000))
                    .isInstanceOf(RegistryException.class)
                    .extracting(e -> ((RegistryException) e).kind()).isEqualTo(Kind.LEASE_LOST);
            assertThatThrownBy(() -> registry.release(c, 60_000))
                    .isInstanceOf(RegistryException.class)
                    .extracting(e -> ((RegistryException) e).kind()).isEqualTo(Kind.LEASE_LOST);
            assertThat(EtcdStore.string(hwm().getValue())).isEqualTo("50000");
            assertThat(hwm().getModRevision()).isEqualTo(taken.token());
        }
    }

    private static void assertUnavailable(ThrowingCallable call) {
        assertThatThrownBy(call).isInstanceOf(RegistryException.class)
                .extracting(e -> ((RegistryException) e).kind()).isEqualTo(Kind.UNAVAILABLE);
    }
}

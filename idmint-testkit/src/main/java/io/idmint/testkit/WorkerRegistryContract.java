package io.idmint.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import io.idmint.Layout;
import io.idmint.spi.Claim;
import io.idmint.spi.ClaimRequest;
import io.idmint.spi.RegistryException;
import io.idmint.spi.RegistryException.Kind;
import io.idmint.spi.WorkerRecord;
import io.idmint.spi.WorkerRegistry;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.OptionalLong;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What every {@link WorkerRegistry} must do. A backend's test extends this and supplies
 * {@link #connect()}: each call is a new client of the same store, standing for another node.
 */
public abstract class WorkerRegistryContract {

    private final List<WorkerRegistry> opened = new ArrayList<>();
    /** A namespace of its own for each test, so tests can share a store. */
    protected final String namespace = "t" + UUID.randomUUID().toString().substring(0, 8);

    /** A new client of the store under test. */
    protected abstract WorkerRegistry newClient();

    protected final WorkerRegistry connect() {
        WorkerRegistry r = newClient();
        opened.add(r);
        return r;
    }

    @AfterEach
    void closeClients() {
        opened.forEach(WorkerRegistry::close);
    }

    /**
     * Whether the store reports its own clock ({@link WorkerRegistry#storeTimeMillis}); a
     * backend whose store has one overrides this to say so.
     */
    protected boolean hasStoreClock() {
        return false;
    }

    protected ClaimRequest request(int maxWorkerId, int preferred) {
        return request(maxWorkerId, preferred, 10_000);
    }

    private ClaimRequest request(int maxWorkerId, int preferred, long maxAheadMillis) {
        return new ClaimRequest(namespace, Layout.SNOWFLAKE.spec(), 1, "dc-one", maxWorkerId,
                preferred, 30_000, "test/" + maxWorkerId, maxAheadMillis);
    }

    @Test
    void storeTimeMillis_whereTheStoreHasAClock_isWithinSecondsOfOursOnLoopback()
            throws Exception {
        WorkerRegistry r = connect();
        r.claim(request(3, -1)); // connected, schema in place: the read is one round trip
        long before = System.currentTimeMillis();
        OptionalLong store = r.storeTimeMillis();
        long after = System.currentTimeMillis();
        assertThat(store.isPresent()).as("store time reported").isEqualTo(hasStoreClock());
        if (store.isPresent()) {
            assertThat(store.getAsLong()).isBetween(before - 3_000, after + 3_000);
        }
    }

    @Test
    void claim_freshPool_startsAtZeroHwm() throws Exception {
        Claim c = connect().claim(request(3, -1));
        assertThat(c.hwmMillis()).isZero();
        assertThat(c.workerId()).isBetween(0, 3);
        assertThat(c.datacenterId()).isEqualTo(1);
        assertThat(c.namespace()).isEqualTo(namespace);
    }

    @Test
    void claim_preferredFree_takesIt() throws Exception {
        assertThat(connect().claim(request(7, 5)).workerId()).isEqualTo(5);
    }

    @Test
    void claim_whileHeld_givesAnotherWorker() throws Exception {
        Claim a = connect().claim(request(7, 2));
        Claim b = connect().claim(request(7, 2));
        assertThat(b.workerId()).isNotEqualTo(a.workerId());
    }

    @Test
    void claim_poolFull_refusesInsteadOfSharing() throws Exception {
        connect().claim(request(1, -1));
        connect().claim(request(1, -1));
        assertThatThrownBy(() -> connect().claim(request(1, -1)))
                .isInstanceOf(RegistryException.class)
                .extracting(e -> ((RegistryException) e).kind()).isEqualTo(Kind.POOL_FULL);
    }

    @Test
    void extend_changesToken() throws Exception {
        WorkerRegistry r = connect();
        Claim c = r.claim(request(0, -1));
        long t1 = r.extend(c, 5_000);
        long t2 = r.extend(c.withToken(t1), 6_000);
        assertThat(List.of(c.token(), t1, t2)).doesNotHaveDuplicates();
    }

    @Test
    void extend_neverLowers_andOutlivesTheHolder() throws Exception {
        WorkerRegistry a = connect();
        Claim c = a.claim(request(0, -1));
        long token = a.extend(c, 9_000);
        a.extend(c.withToken(token), 7_000);
        // The first node dies without releasing: closing the client drops its liveness.
        a.close();
        Claim next = awaitClaim(request(0, -1));
        assertThat(next.hwmMillis()).isGreaterThanOrEqualTo(9_000);
    }

    @Test
    void extend_staleToken_isLeaseLost() throws Exception {
        WorkerRegistry r = connect();
        Claim c = r.claim(request(0, -1));
        long token = r.extend(c, 1_000);
        assertThatThrownBy(() -> r.extend(c, 2_000))
                .isInstanceOf(RegistryException.class)
                .extracting(e -> ((RegistryException) e).kind()).isEqualTo(Kind.LEASE_LOST);
        assertThat(r.extend(c.withToken(token), 2_000)).isNotEqualTo(token);
    }

    @Test
    void release_freesAtOnce_withFinalHwm() throws Exception {
        WorkerRegistry a = connect();
        Claim c = a.claim(request(0, -1));
        long token = a.extend(c, 20_000);
        a.release(c.withToken(token), 12_000);
        Claim next = connect().claim(request(0, -1));
        assertThat(next.workerId()).isEqualTo(c.workerId());
        assertThat(next.hwmMillis()).isEqualTo(12_000);
    }

    @Test
    void release_staleToken_isLeaseLost() throws Exception {
        WorkerRegistry a = connect();
        Claim c = a.claim(request(0, -1));
        a.extend(c, 1_000);
        assertThatThrownBy(() -> a.release(c, 500))
                .isInstanceOf(RegistryException.class)
                .extracting(e -> ((RegistryException) e).kind()).isEqualTo(Kind.LEASE_LOST);
    }

    /** The clock the registry under test compares HWMs with; this host's by default. */
    protected long clockMillis() {
        return System.currentTimeMillis();
    }

    /**
     * Without a free preferred worker: the lowest free ID whose HWM is not ahead of the clock
     * (never-used ones count as 0), so a fleet that restarts reuses a compact set of IDs; only
     * when every free one is ahead, the coldest.
     */
    @Test
    void claim_takesTheLowestFreeWorkerBehindTheClock_elseTheColdest() throws Exception {
        WorkerRegistry a = connect();
        long now = clockMillis();
        long[] hwm = {now + 600_000, now - 1_000, now + 300_000, 10_000};
        for (int w = 0; w < hwm.length; w++) {
            Claim c = a.claim(request(4, w));
            a.release(c.withToken(a.extend(c, hwm[w])), hwm[w]);
        }
        WorkerRegistry b = connect();
        assertThat(b.claim(request(4, -1)).workerId()).as("lowest behind the clock, not the "
                + "coldest").isEqualTo(1);
        assertThat(b.claim(request(4, -1)).workerId()).isEqualTo(3);
        assertThat(b.claim(request(4, -1)).workerId()).as("never used: HWM 0").isEqualTo(4);
        assertThat(b.claim(request(4, -1)).workerId()).as("all free ones ahead: the coldest")
                .isEqualTo(2);
        assertThat(b.claim(request(4, -1)).workerId()).isEqualTo(0);
    }

    @Test
    void claim_otherLayout_isConflict() throws Exception {
        connect().claim(request(3, -1));
        ClaimRequest other = new ClaimRequest(namespace, Layout.REGION.spec(), 1, "dc-one", 3, -1,
                30_000, "test");
        assertThatThrownBy(() -> connect().claim(other))
                .isInstanceOf(RegistryException.class)
                .extracting(e -> ((RegistryException) e).kind()).isEqualTo(Kind.CONFLICT);
    }

    @Test
    void claim_sameDatacenterIdUnderAnotherName_isConflict() throws Exception {
        connect().claim(request(3, -1));
        ClaimRequest other = new ClaimRequest(namespace, Layout.SNOWFLAKE.spec(), 1, "dc-two", 3,
                -1, 30_000, "test");
        assertThatThrownBy(() -> connect().claim(other))
                .isInstanceOf(RegistryException.class)
                .hasMessageContaining("dc-one").hasMessageContaining("dc-two")
                .extracting(e -> ((RegistryException) e).kind()).isEqualTo(Kind.CONFLICT);
        ClaimRequest unnamed = new ClaimRequest(namespace, Layout.SNOWFLAKE.spec(), 1, "", 3, -1,
                30_000, "test");
        assertThat(connect().claim(unnamed).datacenterId()).as("no name: no check").isEqualTo(1);
    }

    @Test
    void list_showsHoldersAndHwms() throws Exception {
        WorkerRegistry r = connect();
        Claim held = r.claim(request(3, 1));
        r.extend(held, 7_000);
        Claim freed = r.claim(request(3, 2));
        r.release(freed.withToken(r.extend(freed, 9_000)), 8_000);
        List<WorkerRecord> records = connect().list(namespace);
        assertThat(records).extracting(WorkerRecord::workerId).contains(1, 2);
        WorkerRecord one = records.stream().filter(x -> x.workerId() == 1).findFirst()
                .orElseThrow();
        assertThat(one.held()).isTrue();
        assertThat(one.holder()).isEqualTo("test/3");
        assertThat(one.hwmMillis()).isEqualTo(7_000);
        assertThat(one.datacenterId()).isEqualTo(1);
        assertThat(one.leaseExpiresMillis()).isPositive();
        WorkerRecord two = records.stream().filter(x -> x.workerId() == 2).findFirst()
                .orElseThrow();
        assertThat(two.held()).isFalse();
        assertThat(two.hwmMillis()).isEqualTo(8_000);
        assertThat(connect().list("unused" + namespace)).isEmpty();
    }

    @Test
    void heldWorkers_areTheListsHeldOnes_withTheirHwms() throws Exception {
        WorkerRegistry r = connect();
        Claim one = r.claim(request(3, 1));
        r.extend(one, 7_000);
        Claim two = r.claim(request(3, 2));
        r.release(two.withToken(r.extend(two, 9_000)), 8_000);
        Claim three = r.claim(request(3, 3));
        WorkerRegistry other = connect();
        assertThat(other.heldWorkers(namespace))
                .extracting(WorkerRecord::datacenterId, WorkerRecord::workerId,
                        WorkerRecord::hwmMillis, WorkerRecord::holder)
                .containsExactlyElementsOf(other.list(namespace).stream()
                        .filter(WorkerRecord::held)
                        .map(x -> tuple(x.datacenterId(), x.workerId(), x.hwmMillis(),
                                x.holder()))
                        .toList())
                .contains(tuple(1, 1, 7_000L, "test/3"), tuple(1, 3, three.hwmMillis(),
                        "test/3"));
        assertThat(other.heldWorkers("unused" + namespace)).isEmpty();
    }

    /**
     * Where the store keeps no clock, the fleet clock check reads each holder's HWM against the
     * holder's own reservation (docs/design.md, "Clock checks"), so each claim's
     * {@code maxAheadMillis} comes back with its worker, and 0 for a claim that said none.
     */
    @Test
    void heldWorkers_withoutAStoreClock_sayHowFarEachHolderReservesAhead() throws Exception {
        WorkerRegistry r = connect();
        r.claim(request(3, 1, 11_000));
        r.claim(request(3, 2, 1_000));
        r.claim(request(3, 3, 0));
        for (List<WorkerRecord> records : List.of(connect().heldWorkers(namespace),
                connect().list(namespace))) {
            for (WorkerRecord w : records) {
                long said = w.workerId() == 1 ? 11_000 : w.workerId() == 2 ? 1_000 : 0;
                assertThat(w.holder()).as("the name alone").isEqualTo("test/3");
                if (hasStoreClock()) {
                    assertThat(w.maxAheadMillis()).isIn(0L, said);
                } else {
                    assertThat(w.maxAheadMillis()).as("worker " + w.workerId())
                            .isEqualTo(said);
                }
            }
            assertThat(records).extracting(WorkerRecord::workerId).containsExactly(1, 2, 3);
        }
    }

    @Test
    void claim_eightConcurrentClaimersForPoolOfOne_exactlyOneWins() throws Exception {
        int n = 8;
        List<WorkerRegistry> clients = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            clients.add(connect());
        }
        ExecutorService pool = Executors.newFixedThreadPool(n);
        try {
            CountDownLatch go = new CountDownLatch(1);
            List<Future<Claim>> results = new ArrayList<>();
            for (WorkerRegistry c : clients) {
                results.add(pool.submit(() -> {
                    go.await();
                    try {
                        return c.claim(request(0, -1));
                    } catch (RegistryException e) {
                        assertThat(e.kind()).isIn(Kind.POOL_FULL, Kind.UNAVAILABLE);
                        return null;
                    }
                }));
            }
            go.countDown();
            Set<Integer> winners = new HashSet<>();
            int wins = 0;
            for (Future<Claim> f : results) {
                Claim c = f.get(60, TimeUnit.SECONDS);
                if (c != null) {
                    wins++;
                    winners.add(c.workerId());
                }
            }
            assertThat(wins).isEqualTo(1);
            assertThat(winners).containsExactly(0);
        } finally {
            pool.shutdownNow();
        }
    }

    /**
     * Claims once the previous holder's liveness is gone. Backends whose liveness outlasts a
     * closed client (a TTL) override this to wait or expire the lease.
     */
    protected Claim awaitClaim(ClaimRequest request) throws Exception {
        return connect().claim(request);
    }
}

package io.idmint.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idmint.IdGenerator;
import io.idmint.IdUnavailableException;
import io.idmint.Layout;
import io.idmint.LeaseState;
import io.idmint.Snowflake;
import io.idmint.WorkerRegistries;
import io.idmint.spi.WorkerRegistry;
import io.idmint.testkit.IdOracle;
import io.idmint.testkit.MintingThread;
import io.idmint.testkit.PausableRegistry;
import io.idmint.testkit.Poll;
import io.idmint.testkit.fixture.EtcdServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Real generators on a real 3-member etcd cluster, with real faults: the leader killed, a
 * node's keepalive held back past its lease while another node takes its worker (the whole
 * store stopped and started again is {@link EtcdStoreOutageIT}). Short timings: lease TTL 3 s,
 * keepalive 1 s, store timeout 3 s, reservation 1 s (runway at most 1 s past the last
 * acknowledged renewal), etcd calls time out after 2 s.
 */
class EtcdGeneratorIT {

    /** No worker bits: a pool of exactly one worker ID. */
    private static final Layout POOL_OF_ONE = Layout.parse("time=41,sequence=12");

    /** Its own members: a test kills the leader. */
    @RegisterExtension
    static final EtcdServer etcd = EtcdServer.dedicated(3);

    private final String namespace = "g" + UUID.randomUUID().toString().substring(0, 8);
    private final List<AutoCloseable> toClose =
            java.util.Collections.synchronizedList(new ArrayList<>());

    @AfterEach
    void cleanUp() throws Exception {
        for (int i = toClose.size() - 1; i >= 0; i--) {
            toClose.get(i).close();
        }
        etcd.cluster().restartAll();
    }

    private WorkerRegistry registry() {
        WorkerRegistry r = WorkerRegistries.open(etcd.uri("2s"), Path.of("unused"));
        toClose.add(r);
        return r;
    }

    private IdGenerator generator(WorkerRegistry registry, Layout layout, Duration reservation) {
        IdGenerator g = Snowflake.newBuilder().registry(registry).namespace(namespace)
                .layout(layout).leaseTtl(Duration.ofSeconds(3))
                .keepaliveInterval(Duration.ofSeconds(1)).storeTimeout(Duration.ofSeconds(3))
                .reservationWindow(reservation).build();
        toClose.add(g);
        return g;
    }

    private MintingThread minter(IdGenerator g, String name) {
        MintingThread m = new MintingThread(name, g);
        toClose.add(m);
        return m;
    }

    @Test
    void eightGenerators_poolOfOne_exactlyOneActive_andReleaseHandsOver() throws Exception {
        int n = 8;
        List<WorkerRegistry> registries = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            registries.add(registry());
        }
        ExecutorService pool = Executors.newFixedThreadPool(n);
        List<IdGenerator> gens = new ArrayList<>();
        try {
            CountDownLatch go = new CountDownLatch(1);
            List<Future<IdGenerator>> built = new ArrayList<>();
            for (WorkerRegistry r : registries) {
                built.add(pool.submit(() -> {
                    go.await();
                    return generator(r, POOL_OF_ONE, Duration.ofSeconds(1));
                }));
            }
            go.countDown();
            for (Future<IdGenerator> f : built) {
                gens.add(f.get(60, TimeUnit.SECONDS));
            }
        } finally {
            pool.shutdownNow();
        }
        List<IdGenerator> active = gens.stream()
                .filter(g -> g.status().state() == LeaseState.ACTIVE).toList();
        assertThat(active).hasSize(1);
        // On a loaded machine a first claim may time out instead; it is retried every second.
        Poll.until(Duration.ofSeconds(20), "the other seven wait for a held worker",
                () -> gens.stream().filter(g -> g != active.get(0)).allMatch(g ->
                        g.status().state() == LeaseState.ACQUIRING
                        && g.status().detail().contains("are held")));
        for (IdGenerator g : gens) {
            if (g != active.get(0)) {
                assertThatThrownBy(g::nextId).isInstanceOf(IdUnavailableException.class);
            }
        }
        assertThat(gens.stream().filter(g -> g.status().ready())).containsExactly(active.get(0));
        IdGenerator first = active.get(0);
        long[] firstIds = new long[1000];
        first.nextIds(firstIds, 0, firstIds.length);

        // A graceful shutdown releases the worker at once: another node takes it well before
        // the 3 s lease could have run out.
        first.close();
        long closed = System.nanoTime();
        Poll.until(Duration.ofSeconds(10), "another generator takes the released worker",
                () -> gens.stream().anyMatch(g -> g.status().ready()));
        Duration handOver = Duration.ofNanos(System.nanoTime() - closed);
        List<IdGenerator> next = gens.stream().filter(g -> g.status().ready()).toList();
        assertThat(next).hasSize(1);
        assertThat(handOver).isLessThan(Duration.ofSeconds(3));
        long[] nextIds = new long[1000];
        next.get(0).nextIds(nextIds, 0, nextIds.length);
        IdOracle.assertDisjointHolders(POOL_OF_ONE, Map.of("first", firstIds, "next", nextIds));
    }

    @Test
    void zombie_keepalivePausedPastTtl_isFencedAndRangesAreDisjoint() throws Exception {
        PausableRegistry zombieRegistry = new PausableRegistry(registry());
        IdGenerator zombie = generator(zombieRegistry, POOL_OF_ONE, Duration.ofSeconds(1));
        assertThat(zombie.status().state()).isEqualTo(LeaseState.ACTIVE);
        MintingThread zombieIds = minter(zombie, "zombie");
        Poll.until(Duration.ofSeconds(5), "the zombie mints", () -> zombieIds.count() > 100);

        zombieRegistry.pause();
        // Resumed last of all even if an assertion fails, or closing the zombie would hang.
        toClose.add(zombieRegistry::resume);
        zombieRegistry.awaitHeld(10, java.util.concurrent.TimeUnit.SECONDS);
        IdGenerator successor = generator(registry(), POOL_OF_ONE, Duration.ofSeconds(1));
        // The successor gets the worker only once etcd expires the zombie's lease (TTL 3 s).
        Poll.until(Duration.ofSeconds(15), "the successor takes the worker",
                () -> successor.status().ready());
        // Meanwhile the zombie ran out of runway: it never issues past its last reservation.
        // (Not nextId() here: past the limit it waits for the lease lock, which the paused
        // renewal holds; status() does not.)
        assertThat(zombie.status().ready()).isFalse();
        MintingThread successorIds = minter(successor, "successor");
        Poll.until(Duration.ofSeconds(5), "the successor mints", () -> successorIds.count() > 100);

        // The held-back renewal now reaches etcd with the old fencing token.
        zombieRegistry.resume();
        Poll.until(Duration.ofSeconds(10), "the zombie learns it lost the worker",
                () -> zombie.status().state() != LeaseState.ACTIVE
                        && zombie.status().state() != LeaseState.DEGRADED);
        assertThatThrownBy(zombie::nextId).isInstanceOf(IdUnavailableException.class);
        Poll.until(Duration.ofSeconds(5), "the successor keeps minting",
                () -> successorIds.count() > 1000);
        zombieIds.close();
        successorIds.close();
        assertThat(successor.status().state()).isEqualTo(LeaseState.ACTIVE);
        assertThat(zombie.status().ready()).isFalse();
        IdOracle.assertDisjointHolders(POOL_OF_ONE,
                Map.of("zombie", zombieIds.ids(), "successor", successorIds.ids()));
    }

    @Test
    void leaderKilled_twoGeneratorsKeepIssuing_noDuplicate() throws Exception {
        // A 3 s reservation: a runway that outlasts an election (about 0.5 to 1 s here).
        Duration reservation = Duration.ofSeconds(3);
        IdGenerator a = generator(registry(), Layout.SNOWFLAKE, reservation);
        IdGenerator b = generator(registry(), Layout.SNOWFLAKE, reservation);
        assertThat(a.status().workerId()).isNotEqualTo(b.status().workerId());
        MintingThread aIds = minter(a, "a");
        MintingThread bIds = minter(b, "b");
        Poll.until(Duration.ofSeconds(5), "both mint", () -> aIds.count() > 100
                && bIds.count() > 100);

        int leader = etcd.cluster().leader(Duration.ofSeconds(10));
        etcd.cluster().kill(leader);
        long killed = System.nanoTime();
        int newLeader = etcd.cluster().leader(Duration.ofSeconds(10));
        long electedNanos = System.nanoTime();
        assertThat(newLeader).isNotEqualTo(leader);
        // Renewals go through the new leader: both keep (or resume) issuing and stay ready.
        Poll.until(Duration.ofSeconds(15), "both mint after the kill and renew their leases",
                () -> aIds.lastIdNanos() > killed + 2_000_000_000L
                        && bIds.lastIdNanos() > killed + 2_000_000_000L
                        && a.status().ready() && b.status().ready());
        int aCount = aIds.count();
        int bCount = bIds.count();
        Poll.until(Duration.ofSeconds(10), "both keep minting",
                () -> aIds.count() > aCount + 1000 && bIds.count() > bCount + 1000);
        aIds.close();
        bIds.close();
        Map<String, long[]> byHolder = new LinkedHashMap<>();
        byHolder.put("a", aIds.ids());
        byHolder.put("b", bIds.ids());
        IdOracle.assertDisjointHolders(Layout.SNOWFLAKE, byHolder);
        IdOracle.assertStrictlyIncreasing(aIds.ids());
        IdOracle.assertStrictlyIncreasing(bIds.ids());
        System.out.println("leader kill: " + aIds.count() + " and " + bIds.count() + " IDs, "
                + aIds.refused() + " and " + bIds.refused() + " calls refused, new leader after "
                + Duration.ofNanos(electedNanos - killed).toMillis() + " ms");
    }
}

package io.idmint.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idmint.GeneratorStatus;
import io.idmint.IdGenerator;
import io.idmint.IdUnavailableException;
import io.idmint.Layout;
import io.idmint.LeaseState;
import io.idmint.Snowflake;
import io.idmint.spi.ClaimRequest;
import io.idmint.spi.RegistryException;
import io.idmint.spi.WorkerRegistry;
import io.idmint.testkit.IdOracle;
import io.idmint.testkit.MintingThread;
import io.idmint.testkit.PausableRegistry;
import io.idmint.testkit.fixture.ZkServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
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
 * Real generators on a real ZooKeeper server, with faults: contention for a pool of one, a
 * holder paused while its session expires and another node takes its worker, an extend while
 * the connection is suspended (the store outage is {@link ZkStoreOutageIT}).
 * Timings: lease TTL 3 s (so the session timeout is 3 s), keepalive 1 s, store timeout 3 s,
 * reservation 1 s.
 */
class ZkGeneratorFaultIT {

    /** No worker bits: a pool of exactly one worker ID. */
    private static final Layout ONE = Layout.parse("time=41,sequence=12");

    private final String ns = "g" + UUID.randomUUID().toString().substring(0, 8);
    private final List<AutoCloseable> toClose = new ArrayList<>();
    /** A server of each test's own: tests stop it and expire sessions on it. */
    @RegisterExtension
    final ZkServer zk = ZkServer.dedicated();

    @AfterEach
    void stop() throws Exception {
        // A paused registry would hold a generator's close() forever.
        toClose.stream().filter(c -> c instanceof PausableRegistry)
                .forEach(c -> ((PausableRegistry) c).resume());
        Collections.reverse(toClose);
        for (AutoCloseable c : toClose) {
            c.close();
        }
    }

    private <T extends AutoCloseable> T closeLater(T c) {
        toClose.add(c);
        return c;
    }

    private ZkRegistry registry(String options) {
        return closeLater(ZkTesting.open(zk, options));
    }

    private IdGenerator generator(WorkerRegistry r) {
        return closeLater(Snowflake.newBuilder().registry(r).namespace(ns).layout(ONE)
                .leaseTtl(Duration.ofSeconds(3)).keepaliveInterval(Duration.ofSeconds(1))
                .storeTimeout(Duration.ofSeconds(3)).reservationWindow(Duration.ofSeconds(1))
                .build());
    }

    private MintingThread minter(String name, IdGenerator g) {
        return closeLater(new MintingThread(name, g));
    }

    @Test
    void eightGenerators_poolOfOne_exactlyOneActive_othersHeldOff_untilRelease() throws Exception {
        List<ZkRegistry> registries = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            registries.add(registry("timeout=5s"));
        }
        ExecutorService pool = Executors.newFixedThreadPool(8);
        List<IdGenerator> gens = new ArrayList<>();
        try {
            CountDownLatch go = new CountDownLatch(1);
            List<Future<IdGenerator>> futures = new ArrayList<>();
            for (ZkRegistry r : registries) {
                futures.add(pool.submit(() -> {
                    go.await();
                    return generator(r);
                }));
            }
            go.countDown();
            for (Future<IdGenerator> f : futures) {
                gens.add(f.get(60, TimeUnit.SECONDS));
            }
        } finally {
            pool.shutdownNow();
        }
        List<IdGenerator> active = gens.stream()
                .filter(g -> g.status().state() == LeaseState.ACTIVE).toList();
        assertThat(active).hasSize(1);
        IdGenerator winner = active.get(0);
        for (IdGenerator g : gens) {
            if (g != winner) {
                GeneratorStatus s = g.status();
                assertThat(s.state()).isEqualTo(LeaseState.ACQUIRING);
                assertThat(s.ready()).isFalse();
                assertThat(s.detail()).contains("held");
                assertThatThrownBy(g::nextId).isInstanceOf(IdUnavailableException.class);
            }
        }
        long[] first = new long[1000];
        winner.nextIds(first, 0, first.length);
        winner.close();
        // A graceful release frees the worker at once: one of the others takes it on its next
        // retry (every second), not after the 3 s TTL.
        long handOver = ZkTesting.await("another generator takes the released worker", 5_000,
                () -> gens.stream().anyMatch(g -> g.status().state() == LeaseState.ACTIVE));
        assertThat(handOver).isLessThan(3_000);
        List<IdGenerator> next = gens.stream()
                .filter(g -> g.status().state() == LeaseState.ACTIVE).toList();
        assertThat(next).hasSize(1);
        long[] second = new long[1000];
        next.get(0).nextIds(second, 0, second.length);
        IdOracle.assertDisjointHolders(ONE, Map.of("first", first, "second", second));
    }

    /**
     * The zombie: A's maintenance stalls (its registry calls are held) while its hot path runs
     * out of runway; its session expires on the server and B takes the worker. When A resumes,
     * its extend is LEASE_LOST and it refuses until it can re-claim; the two holders minted from
     * disjoint time ranges.
     */
    @Test
    void zombie_sessionExpiresWhilePaused_workerTaken_resumedHolderIsFenced() throws Exception {
        ZkRegistry ra = registry("");
        PausableRegistry pa = closeLater(new PausableRegistry(ra));
        IdGenerator a = generator(pa);
        MintingThread ma = minter("a", a);
        ZkTesting.await("a mints", 5_000, () -> ma.count() > 200);

        pa.pause();
        long stale = ZkTesting.await("a stops issuing once its runway is used up", 3_000,
                () -> !a.status().ready());
        assertThat(stale).as("runway is at most the 1 s reservation").isLessThan(2_000);
        long oldSession = ZkTesting.curator(ra).getZookeeperClient().getZooKeeper().getSessionId();
        ZkTesting.expireOnServer(ZkTesting.curator(ra), zk.connectString());

        ZkRegistry rb = registry("");
        IdGenerator b = generator(rb);
        assertThat(b.status().state()).isEqualTo(LeaseState.ACTIVE);
        MintingThread mb = minter("b", b);
        ZkTesting.await("b mints", 5_000, () -> mb.count() > 200);

        // Let A's client notice the expiry and open a new session before A's calls go through.
        ZkTesting.await("a's client has a new session", 10_000, () -> {
            try {
                var zk = ZkTesting.curator(ra).getZookeeperClient();
                return zk.isConnected() && zk.getZooKeeper().getSessionId() != oldSession;
            } catch (Exception e) {
                return false;
            }
        });
        pa.resume();
        ZkTesting.await("a is held off by b", 10_000,
                () -> a.status().state() == LeaseState.ACQUIRING
                && a.status().detail().contains("held"));
        assertThat(pa.outcomes()).contains("extend LEASE_LOST");
        assertThatThrownBy(a::nextId).isInstanceOf(IdUnavailableException.class);
        assertThat(b.status().ready()).isTrue();
        int aCount = ma.count();
        ZkTesting.await("b keeps minting", 5_000, () -> mb.count() > 400);
        assertThat(ma.count()).as("a issues nothing more").isEqualTo(aCount);

        ma.close();
        mb.close();
        IdOracle.assertDisjointHolders(ONE, Map.of("a", ma.ids(), "b", mb.ids()));
    }

    /** While the connection is suspended, extend fails at once instead of waiting it out. */
    @Test
    void extend_whileSuspended_failsFast() throws Exception {
        ZkRegistry r = registry("timeout=5s&session=10s");
        var claim = r.claim(new ClaimRequest(ns, ONE.spec(), 0, "", 0, -1, 3_000, "x"));
        zk.server().stop();
        ZkTesting.await("suspended", 5_000,
                () -> !ZkTesting.curator(r).getZookeeperClient().isConnected());
        long start = System.nanoTime();
        assertThatThrownBy(() -> r.extend(claim, 1_000))
                .isInstanceOf(RegistryException.class)
                .hasMessageContaining("suspended");
        assertThat((System.nanoTime() - start) / 1_000_000).isLessThan(500);
        zk.server().restart();
        ZkTesting.await("extend works again in the same session", 10_000, () -> {
            try {
                r.extend(claim, 2_000);
                return true;
            } catch (RegistryException e) {
                return false;
            }
        });
    }
}

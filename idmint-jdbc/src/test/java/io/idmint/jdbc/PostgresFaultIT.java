package io.idmint.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idmint.IdGenerator;
import io.idmint.IdUnavailableException;
import io.idmint.Layout;
import io.idmint.LeaseState;
import io.idmint.Snowflake;
import io.idmint.spi.ClaimRequest;
import io.idmint.spi.RegistryException;
import io.idmint.spi.RegistryException.Kind;
import io.idmint.spi.WorkerRegistry;
import io.idmint.testkit.IdOracle;
import io.idmint.testkit.LocalProcesses;
import io.idmint.testkit.MintingThread;
import io.idmint.testkit.PausableRegistry;
import io.idmint.testkit.TestTime;
import io.idmint.testkit.fixture.PostgresServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Real generators on a real PostgreSQL server, with real faults: racing nodes for one worker
 * ID, the server stopped past the runway, and a node frozen past its lease while another takes
 * its worker.
 */
class PostgresFaultIT {

    /** No worker bits: one worker ID for the whole namespace. */
    private static final Layout POOL_OF_ONE = Layout.parse("time=41,sequence=12");

    /** Stopped and started again by the tests. */
    @RegisterExtension
    static final PostgresServer pg = PostgresServer.dedicated();

    private final String namespace = "f" + UUID.randomUUID().toString().substring(0, 8);
    private final List<AutoCloseable> toClose = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        // Generators before their registries: closing a generator releases through its client.
        for (int i = toClose.size() - 1; i >= 0; i--) {
            toClose.get(i).close();
        }
    }

    private <T extends AutoCloseable> T closing(T c) {
        toClose.add(c);
        return c;
    }

    private WorkerRegistry client() {
        return closing(JdbcRegistries.open(pg.url() + "&idmint.timeout=1s"));
    }

    /** Fast timings so faults play out in seconds: TTL 3 s, renew ≈ 333 ms, runway 1 s. */
    private Snowflake fast(WorkerRegistry registry, Layout layout, Duration ttl) {
        return Snowflake.newBuilder().registry(registry).namespace(namespace).layout(layout)
                .leaseTtl(ttl).keepaliveInterval(Duration.ofSeconds(1))
                .storeTimeout(Duration.ofSeconds(3)).reservationWindow(Duration.ofSeconds(1));
    }

    private static void await(IdGenerator g, Predicate<IdGenerator> condition, String what,
            long timeoutSeconds) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
        while (!condition.test(g)) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not " + what + " within " + timeoutSeconds + " s: "
                        + g.status());
            }
            Thread.sleep(20);
        }
    }

    @Test
    void eightGenerators_poolOfOne_exactlyOneActive_andCloseHandsOverAtOnce() throws Exception {
        int n = 8;
        List<WorkerRegistry> clients = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            clients.add(client());
        }
        ExecutorService pool = Executors.newFixedThreadPool(n);
        List<IdGenerator> gens = new ArrayList<>();
        try {
            CountDownLatch go = new CountDownLatch(1);
            List<Future<IdGenerator>> builds = new ArrayList<>();
            for (WorkerRegistry c : clients) {
                builds.add(pool.submit(() -> {
                    go.await();
                    // A long TTL: a hand-over within seconds can only come from the release.
                    return fast(c, POOL_OF_ONE, Duration.ofSeconds(30)).build();
                }));
            }
            go.countDown();
            for (Future<IdGenerator> f : builds) {
                gens.add(closing(f.get(60, TimeUnit.SECONDS)));
            }
        } finally {
            pool.shutdownNow();
        }
        // A node whose first claim timed out (a busy machine) retries within a second, then
        // finds the worker held like the rest.
        long settle = TestTime.deadline(Duration.ofSeconds(15));
        List<IdGenerator> active;
        for (;;) {
            active = gens.stream().filter(g -> g.status().ready()).toList();
            assertThat(active).as("two holders of one worker").hasSizeLessThanOrEqualTo(1);
            long waiting = gens.stream().filter(g -> g.status().state() == LeaseState.ACQUIRING
                    && g.status().detail().contains("held")).count();
            if (active.size() == 1 && waiting == n - 1) {
                break;
            }
            assertThat(System.nanoTime()).as("not settled: %s", gens.stream()
                    .map(IdGenerator::status).toList()).isLessThan(settle);
            Thread.sleep(20);
        }
        for (IdGenerator g : gens) {
            if (g != active.get(0)) {
                assertThatThrownBy(g::nextId).isInstanceOf(IdUnavailableException.class);
            }
        }
        IdGenerator first = active.get(0);
        long[] firstIds = new long[2000];
        for (int i = 0; i < firstIds.length; i++) {
            firstIds[i] = first.nextId();
        }
        long closed = System.nanoTime();
        first.close();
        IdGenerator next = null;
        long deadline = closed + TimeUnit.SECONDS.toNanos(10);
        while (next == null) {
            List<IdGenerator> ready = gens.stream().filter(g -> g.status().ready()).toList();
            assertThat(ready).hasSizeLessThanOrEqualTo(1);
            if (!ready.isEmpty()) {
                next = ready.get(0);
            } else {
                assertThat(System.nanoTime()).as("no hand-over after release").isLessThan(deadline);
                Thread.sleep(20);
            }
        }
        assertThat(Duration.ofNanos(System.nanoTime() - closed)).isLessThan(Duration.ofSeconds(10));
        long[] nextIds = new long[2000];
        for (int i = 0; i < nextIds.length; i++) {
            nextIds[i] = next.nextId();
        }
        IdOracle.assertDisjointHolders(POOL_OF_ONE, Map.of("first", firstIds, "next", nextIds));
        assertThat(gens.stream().filter(g -> g.status().ready())).hasSize(1);
    }

    @Test
    void storeDown_pastTheRunway_goesNotReady_andRecoversByItself() throws Exception {
        IdGenerator g = closing(fast(client(), Layout.SNOWFLAKE, Duration.ofSeconds(3)).build());
        await(g, x -> x.status().ready(), "ready", 10);
        long before = g.nextId();
        long stopping = System.nanoTime();
        pg.stop();
        try {
            // The runway is at most the 1 s reservation past the last acknowledged renewal.
            await(g, x -> !x.status().ready(), "NOT READY", 5);
            assertThat(Duration.ofNanos(System.nanoTime() - stopping))
                    .isLessThan(Duration.ofSeconds(5));
            assertThatThrownBy(g::nextId).isInstanceOf(IdUnavailableException.class);
            // Past the store timeout the worker is given up, not kept on a cached ID.
            await(g, x -> x.status().state() == LeaseState.LOST
                    || x.status().state() == LeaseState.ACQUIRING, "LOST", 10);
            assertThat(g.status().ready()).isFalse();
        } finally {
            pg.start();
        }
        await(g, x -> x.status().ready(), "ready again", 30);
        long after = g.nextId();
        assertThat(after).isGreaterThan(before);
        IdOracle.assertUnique(new long[] {before, after, g.nextId()});
    }

    @Test
    void fencing_frozenHolderPastItsLease_isLeaseLost_andTheRangesAreDisjoint() throws Exception {
        PausableRegistry frozen = closing(new PausableRegistry(client()));
        IdGenerator a = closing(fast(frozen, POOL_OF_ONE, Duration.ofSeconds(3)).build());
        await(a, x -> x.status().ready(), "ready", 10);
        MintingThread ma = closing(new MintingThread("a", a));
        ma.awaitCount(200, 10);
        frozen.pause();
        await(a, x -> !x.status().ready(), "NOT READY while frozen", 5);

        // Another node waits for the frozen node's lease to run out on the server's clock.
        IdGenerator b = closing(fast(client(), POOL_OF_ONE, Duration.ofSeconds(3)).build());
        await(b, x -> x.status().ready(), "ready after the lease ran out", 15);
        MintingThread mb = closing(new MintingThread("b", b));
        mb.awaitCount(200, 10);

        // The frozen node wakes up and its renewal reaches the store with the old token.
        frozen.resume();
        long deadline = TestTime.deadline(Duration.ofSeconds(10));
        while (!frozen.sawLeaseLost()) {
            assertThat(System.nanoTime()).as("no LEASE_LOST").isLessThan(deadline);
            Thread.sleep(20);
        }
        await(a, x -> x.status().state() != LeaseState.ACTIVE
                && x.status().state() != LeaseState.DEGRADED, "off its worker", 5);
        assertThat(a.status().ready()).isFalse();
        assertThatThrownBy(a::nextId).isInstanceOf(IdUnavailableException.class);
        ma.close();
        mb.close();
        long[] fromA = ma.ids();
        long[] fromB = mb.ids();
        assertThat(fromA).hasSizeGreaterThanOrEqualTo(200);
        assertThat(fromB).hasSizeGreaterThanOrEqualTo(200);
        IdOracle.assertStrictlyIncreasing(fromA);
        IdOracle.assertStrictlyIncreasing(fromB);
        IdOracle.assertDisjointHolders(POOL_OF_ONE, Map.of("a", fromA, "b", fromB));
        assertThat(b.status().ready()).isTrue();
    }

    @Test
    void claim_noServerListening_isUnavailableWithinTheTimeout() throws Exception {
        int port = LocalProcesses.freePort();
        WorkerRegistry r = closing(JdbcRegistries.open("jdbc:postgresql://127.0.0.1:" + port
                + "/ids?user=x&password=hidden&idmint.timeout=500ms"));
        long start = System.nanoTime();
        assertThatThrownBy(() -> r.claim(new ClaimRequest(namespace, Layout.SNOWFLAKE.spec(), 0,
                "", 3, -1, 30_000, "h")))
                .isInstanceOf(RegistryException.class)
                .hasMessageNotContaining("hidden")
                .extracting(e -> ((RegistryException) e).kind()).isEqualTo(Kind.UNAVAILABLE);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
    }
}

package io.idmint;

import static io.idmint.Nodes.T0;
import static io.idmint.Nodes.ms;
import static io.idmint.Nodes.step;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idmint.IdUnavailableException.Reason;
import io.idmint.spi.Claim;
import io.idmint.spi.RegistryException;
import io.idmint.testkit.ForwardingRegistry;
import io.idmint.testkit.IdOracle;
import io.idmint.testkit.InMemoryRegistry;
import io.idmint.testkit.ManualTimeSource;
import java.time.Duration;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link Snowflake#workers(int)}: several leased workers in one generator. Everything runs on a
 * manual clock that moves only when a caller waits for it, so "lead" is exact: an ID's time is
 * never after the clock reading taken once its call has returned.
 */
class StripedGeneratorTest {

    private final ManualTimeSource time = new ManualTimeSource(T0).autoAdvance();
    private final InMemoryRegistry registry = new InMemoryRegistry(time);

    /** A registry whose extends of chosen workers answer LEASE_LOST: they were fenced. */
    private static final class FencingRegistry extends ForwardingRegistry {
        final Set<Integer> fenced = java.util.concurrent.ConcurrentHashMap.newKeySet();

        FencingRegistry(InMemoryRegistry inner) {
            super(inner);
        }

        @Override
        public long extend(Claim claim, long untilMillis) throws RegistryException {
            if (fenced.contains(claim.workerId())) {
                throw new RegistryException(RegistryException.Kind.LEASE_LOST, "worker "
                        + claim.workerId() + " fencing token changed (test)");
            }
            return super.extend(claim, untilMillis);
        }
    }

    /**
     * What each thread of {@link #mint} got: its IDs in the order it got them, and the largest
     * lead seen (an ID's time minus the clock once its call returned).
     */
    private record Minted(long[][] byThread, long maxLeadMillis) {
        long[] all() {
            return java.util.Arrays.stream(byThread).flatMapToLong(java.util.Arrays::stream)
                    .toArray();
        }
    }

    /**
     * {@code threads} threads each take {@code perThread} IDs, mixing single calls with batches
     * of 1 to {@code maxBatch} (seeded), all starting together. Checks every batch is sorted.
     */
    private static Minted mint(IdGenerator g, TimeSource clock, int threads, int perThread,
            int maxBatch, long seed) throws InterruptedException {
        long[][] out = new long[threads][perThread];
        long[] lead = new long[threads];
        IdOracle.together(threads, me -> {
            long[] mine = out[me];
            Random random = new Random(seed + me);
            lead[me] = Long.MIN_VALUE;
            for (int i = 0; i < perThread;) {
                int n = Math.min(perThread - i, random.nextBoolean() ? 1
                        : 1 + random.nextInt(maxBatch));
                if (n == 1 && random.nextBoolean()) {
                    mine[i] = g.nextId();
                } else {
                    g.nextIds(mine, i, i + n);
                }
                long now = clock.currentTimeMillis();
                long newest = mine[i + n - 1];
                lead[me] = Math.max(lead[me],
                        g.layout().decode(newest).timestampMillis() - now);
                i += n;
            }
        });
        long maxLead = Long.MIN_VALUE;
        for (int t = 0; t < threads; t++) {
            IdOracle.assertStrictlyIncreasing(out[t]);
            maxLead = Math.max(maxLead, lead[t]);
        }
        IdOracle.assertUnique(out);
        return new Minted(out, maxLead);
    }

    private static Set<Integer> workersOf(Layout layout, long[] ids) {
        Set<Integer> workers = new HashSet<>();
        for (long id : ids) {
            workers.add(layout.decode(id).workerId());
        }
        return workers;
    }

    @ParameterizedTest
    @ValueSource(ints = {2, 3, 5, 8})
    void manyThreads_singlesAndBatchesMixed_uniqueIncreasingPerThread_neverAhead(int k)
            throws Exception {
        try (StripedGenerator g = Nodes.striped(registry, time, k)) {
            Minted m = mint(g, time, 2 * k, 20_000, 6_000, k);
            assertThat(m.maxLeadMillis()).as("lead with sequence.max-lead 0")
                    .isLessThanOrEqualTo(0);
            assertThat(workersOf(g.layout(), m.all())).as("every worker issued").hasSize(k);
            assertThat(g.status().workers()).hasSize(k)
                    .allSatisfy(w -> assertThat(w.state()).isEqualTo(LeaseState.ACTIVE));
        }
    }

    @Test
    void sonyflakeLayout_runsOfATickInterleave_batchesAreMergedInOrder() throws Exception {
        // sequence above the worker: two workers' IDs of one tick interleave, so runs overlap.
        ManualTimeSource clock = new ManualTimeSource(T0).autoAdvance();
        try (StripedGenerator g = Nodes.striped(new InMemoryRegistry(clock), clock, 3,
                b -> b.layout(Layout.SONYFLAKE))) {
            long[] ids = new long[2_000];
            g.nextIds(ids, 0, ids.length);
            IdOracle.assertStrictlyIncreasing(ids);
            assertThat(workersOf(Layout.SONYFLAKE, ids)).hasSize(3);
            Minted m = mint(g, clock, 4, 5_000, 700, 7);
            assertThat(m.maxLeadMillis()).isLessThanOrEqualTo(0);
            IdOracle.assertUnique(ids, m.all());
        }
    }

    @Test
    void oneThreadsBatches_passOneWorkersCap_withoutLosingTicksBetweenBatches() {
        int k = 4;
        try (StripedGenerator g = Nodes.striped(registry, time, k)) {
            long[] all = new long[400_000];
            for (int i = 0; i < all.length; i += 10_000) {
                g.nextIds(all, i, i + 10_000);
            }
            IdOracle.assertStrictlyIncreasing(all);
            long elapsed = time.currentTimeMillis() - T0;
            // One worker would need 98 ticks; four need 25 when no tick is left half used.
            assertThat(elapsed).as("ms for 400,000 IDs on 4 workers").isLessThanOrEqualTo(26);
            assertThat(Layout.SNOWFLAKE.decode(all[all.length - 1]).timestampMillis())
                    .isLessThanOrEqualTo(time.currentTimeMillis());
            assertThat(workersOf(g.layout(), all)).hasSize(k);
        }
    }

    @Test
    void nextIdAfterABatchEndingOnAnotherWorker_isAboveTheBatch() {
        try (StripedGenerator g = Nodes.striped(registry, time, 2)) {
            long first = g.nextId(); // this thread's home: worker 0, the lower one
            assertThat(Layout.SNOWFLAKE.decode(first).workerId()).isZero();
            long[] batch = new long[5_000]; // more than the 4,095 left of worker 0's tick
            g.nextIds(batch, 0, batch.length);
            IdOracle.assertStrictlyIncreasing(batch);
            assertThat(batch[0]).isGreaterThan(first);
            IdParts top = Layout.SNOWFLAKE.decode(batch[batch.length - 1]);
            assertThat(top.workerId()).as("the batch ends on worker 1").isEqualTo(1);
            assertThat(top.timestampMillis()).isEqualTo(T0);
            long next = g.nextId();
            assertThat(next).isGreaterThan(batch[batch.length - 1]);
            assertThat(Layout.SNOWFLAKE.decode(next).workerId()).isZero();
            assertThat(time.currentTimeMillis()).as("waited one tick, not more").isEqualTo(T0
                    + 1);
            long[] small = new long[3];
            g.nextIds(small, 0, 3);
            assertThat(small[0]).isGreaterThan(next);
        }
    }

    @Test
    void aThreadHomedOnTheHighestWorker_afterABatch_getsTheRestOfTheTickInOrder() throws Exception {
        try (StripedGenerator g = Nodes.striped(registry, time, 2)) {
            long[] other = new long[1];
            Thread t = new Thread(() -> other[0] = g.nextId()); // takes the first home, worker 0
            t.start();
            t.join();
            long[] ids = new long[6_000];
            g.nextIds(ids, 0, 100); // home worker 1, tick T0
            g.nextIds(ids, 100, 6_000); // the rest of worker 1's tick, then worker 0's next one
            IdOracle.assertStrictlyIncreasing(ids);
            assertThat(Layout.SNOWFLAKE.decode(ids[0]).workerId()).isEqualTo(1);
            assertThat(time.currentTimeMillis()).as("no tick lost").isEqualTo(T0 + 1);
            ids = java.util.Arrays.copyOf(ids, 6_001);
            ids[6_000] = g.nextId();
            IdOracle.assertStrictlyIncreasing(ids);
            IdOracle.assertUnique(ids, other);
        }
    }

    @Test
    void nextIdsAbove_aStreamWhoseBatchesHopThreads_staysIncreasing() throws Exception {
        ExecutorService low = Executors.newSingleThreadExecutor();
        ExecutorService high = Executors.newSingleThreadExecutor();
        try (StripedGenerator g = Nodes.striped(registry, time, 2)) {
            assertThat(workerOf(low.submit(() -> g.nextId()).get())).isZero();
            assertThat(workerOf(high.submit(() -> g.nextId()).get())).isEqualTo(1);
            long[] stream = new long[4_000];
            long last = 0;
            for (int i = 0; i < 40; i++) {
                // The thread homed on the higher worker first: the other's batch of the same
                // millisecond would be below it.
                ExecutorService on = i % 2 == 0 ? high : low;
                int at = i * 100;
                long above = last;
                on.submit(() -> g.nextIds(stream, at, at + 100, above)).get();
                last = stream[at + 99];
            }
            IdOracle.assertStrictlyIncreasing(stream);
            // The low thread's batches came from what was left of the high worker's
            // millisecond, above the stream's last ID, rather than waiting for the next one.
            assertThat(workersOf(g.layout(), stream)).containsOnly(1);
            assertThat(time.currentTimeMillis()).isEqualTo(T0);
        } finally {
            low.shutdown();
            high.shutdown();
        }
    }

    private static int workerOf(long id) {
        return Layout.SNOWFLAKE.decode(id).workerId();
    }

    @Test
    void clockSteppingBackAndForth_neverADuplicate_orderKeptPerThread() {
        for (ClockPolicy policy : ClockPolicy.values()) {
            ManualTimeSource clock = new ManualTimeSource(T0).autoAdvance();
            InMemoryRegistry store = new InMemoryRegistry(clock);
            LongStream.Builder ids = LongStream.builder();
            Random random = new Random(42);
            try (StripedGenerator g = Nodes.striped(store, clock, 3,
                    b -> b.clockPolicy(policy))) {
                for (int round = 0; round < 300; round++) {
                    clock.step(ms(round % 2 == 0 ? 500 : -500));
                    clock.advance(ms(random.nextInt(4)));
                    for (int i = 0; i < 10; i++) {
                        try {
                            if (random.nextBoolean()) {
                                ids.add(g.nextId());
                            } else {
                                long[] batch = new long[1 + random.nextInt(3_000)];
                                g.nextIds(batch, 0, batch.length);
                                IdOracle.assertStrictlyIncreasing(batch);
                                for (long id : batch) {
                                    ids.add(id);
                                }
                            }
                        } catch (IdUnavailableException e) {
                            assertThat(policy).isEqualTo(ClockPolicy.FAIL);
                            assertThat(e.reason()).isIn(Reason.CLOCK_BEHIND, Reason.NO_LEASE);
                            step(g);
                        }
                    }
                    step(g);
                }
            }
            long[] all = ids.build().toArray();
            IdOracle.assertStrictlyIncreasing(all);
            assertThat(all.length).as(policy + " issued IDs").isGreaterThan(100_000);
        }
    }

    @Test
    void oneWorkersLeaseLost_threadsMoveToTheOthers_statusDegradedButReady() throws Exception {
        ManualTimeSource clock = new ManualTimeSource(T0).autoAdvance();
        FencingRegistry store = new FencingRegistry(new InMemoryRegistry(clock));
        try (StripedGenerator g = Nodes.striped(store, clock, 3)) {
            Minted before = mint(g, clock, 6, 2_000, 500, 1);
            int victim = g.status().workers().get(1).workerId();
            store.fenced.add(victim);
            clock.advance(Duration.ofSeconds(4));
            step(g); // the victim's extend answers LEASE_LOST: it stops at once
            GeneratorStatus s = g.status();
            assertThat(s.workers().get(1).state()).isEqualTo(LeaseState.LOST);
            assertThat(s.state()).isEqualTo(LeaseState.DEGRADED);
            assertThat(s.ready()).as("two of three workers issue").isTrue();
            assertThat(s.detail()).contains("2 of 3 workers issuing", "worker " + victim);
            // The same threads go on: the ones homed on the victim move, above their last ID.
            Minted during = mint(g, clock, 6, 2_000, 500, 2);
            assertThat(workersOf(g.layout(), during.all())).doesNotContain(victim);
            for (int t = 0; t < 6; t++) {
                // Fresh threads, so no per-thread order across the two runs; uniqueness holds.
                IdOracle.assertStrictlyIncreasing(during.byThread()[t]);
            }
            IdOracle.assertUnique(before.all(), during.all());
            // The victim's stripe re-joins on a worker of its own.
            store.fenced.remove(victim);
            step(g);
            s = g.status();
            assertThat(s.state()).isEqualTo(LeaseState.ACTIVE);
            assertThat(s.workers().stream().map(GeneratorStatus.Worker::workerId)
                    .collect(Collectors.toSet())).hasSize(3);
        }
    }

    @Test
    void homeWorkerLost_aThreadMovesOnAboveItsLastId_andStaysThere() throws Exception {
        ManualTimeSource clock = new ManualTimeSource(T0).autoAdvance();
        FencingRegistry store = new FencingRegistry(new InMemoryRegistry(clock));
        try (StripedGenerator g = Nodes.striped(store, clock, 2)) {
            long[] other = new long[1];
            Thread t = new Thread(() -> other[0] = g.nextId()); // takes the first home, worker 0
            t.start();
            t.join();
            long last = g.nextId(); // home: worker 1, at T0
            assertThat(Layout.SNOWFLAKE.decode(last).workerId()).isEqualTo(1);
            store.fenced.add(1);
            step(g);
            // Worker 0 still has most of tick T0 left, all of it below the last ID: it must
            // take from the next tick.
            long moved = g.nextId();
            assertThat(Layout.SNOWFLAKE.decode(moved).workerId()).isZero();
            assertThat(moved).isGreaterThan(last);
            assertThat(clock.currentTimeMillis()).isEqualTo(T0 + 1);
            long[] after = new long[10];
            g.nextIds(after, 0, 10);
            assertThat(after[0]).isGreaterThan(moved);
            assertThat(workersOf(Layout.SNOWFLAKE, after)).containsOnly(0);
            long[] big = new long[9_000];
            g.nextIds(big, 0, big.length);
            assertThat(big[0]).isGreaterThan(after[9]);
            assertThat(workersOf(Layout.SNOWFLAKE, big)).as("the lost worker is skipped")
                    .containsOnly(0);
            IdOracle.assertStrictlyIncreasing(big);
        }
    }

    @Test
    void nextIdsNow_takesEveryStripesTick_neverWaits_theRestComesATickLaterAboveIt() {
        // The clock advances only when the generator waits: an unchanged clock proves no wait.
        try (StripedGenerator g = Nodes.striped(registry, time, 2)) {
            long[] ids = new long[10_000];

            int k = g.nextIdsNow(ids, 0, ids.length);
            assertThat(k).as("both workers' ticks").isEqualTo(2 * 4096);
            assertThat(g.nextIdsNow(ids, k, ids.length)).as("both used up").isEqualTo(k);
            assertThat(time.currentTimeMillis()).as("never waited").isEqualTo(T0);
            time.advance(ms(1));
            assertThat(g.nextIdsNow(ids, k, ids.length)).isEqualTo(ids.length);

            IdOracle.assertStrictlyIncreasing(ids);
            assertThat(workersOf(g.layout(), ids)).containsExactlyInAnyOrder(0, 1);
            assertThat(g.nextId()).isGreaterThan(ids[ids.length - 1]);
        }
    }

    @Test
    void noWorkerCanIssue_throwsTheUsualUnavailableWithRetryAfter() {
        ManualTimeSource clock = new ManualTimeSource(T0);
        InMemoryRegistry store = new InMemoryRegistry(clock);
        try (StripedGenerator g = Nodes.striped(store, clock, 2)) {
            g.nextId();
            store.setAvailable(false);
            clock.advance(Duration.ofSeconds(11)); // past the runway of both
            assertThatThrownBy(g::nextId).isInstanceOf(IdUnavailableException.class)
                    .satisfies(e -> {
                        IdUnavailableException u = (IdUnavailableException) e;
                        assertThat(u.reason()).isEqualTo(Reason.RUNWAY_EXHAUSTED);
                        assertThat(u.retryAfter()).isPositive();
                    });
            assertThatThrownBy(() -> g.nextIds(new long[10_000], 0, 10_000))
                    .isInstanceOf(IdUnavailableException.class);
            assertThatThrownBy(() -> g.nextIdsNow(new long[10_000], 0, 10_000))
                    .isInstanceOf(IdUnavailableException.class)
                    .extracting(e -> ((IdUnavailableException) e).reason())
                    .isEqualTo(Reason.RUNWAY_EXHAUSTED);
            assertThat(g.status().ready()).isFalse();
            clock.advance(Duration.ofSeconds(5));
            step(g);
            assertThat(g.status().state()).isEqualTo(LeaseState.LOST);
            store.setAvailable(true);
            step(g);
            assertThat(g.status().state()).isEqualTo(LeaseState.ACTIVE);
            assertThat(g.nextId()).isPositive();
        }
    }

    @Test
    void moreWorkersThanFree_clearError_nothingLeftLeased() throws Exception {
        Layout four = Layout.parse("time=41,worker=2,sequence=12");
        try (StripedGenerator other = Nodes.striped(registry, time, 2, b -> b.layout(four))) {
            assertThatThrownBy(() -> Nodes.striped(registry, time, 3, b -> b.layout(four)))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("workers 3: only 2 worker IDs of datacenter 0 were "
                            + "free")
                    .hasMessageContaining("released them again");
            assertThat(registry.list("default")).filteredOn(r -> !r.holder().isEmpty())
                    .hasSize(2);
            try (StripedGenerator rest = Nodes.striped(registry, time, 2, b -> b.layout(four))) {
                assertThat(rest.status().ready()).as("the 2 it had taken were free again")
                        .isTrue();
            }
        }
    }

    @Test
    void builder_rejectsBadWorkerCountsNamingThem() throws Exception {
        assertThatThrownBy(() -> Snowflake.newBuilder().workers(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("workers must be from 1 to 1024, got 0");
        assertThatThrownBy(() -> Snowflake.newBuilder().workers(1025))
                .hasMessage("workers must be from 1 to 1024, got 1025");
        assertThatThrownBy(() -> Snowflake.newBuilder().workers(2).workers(3))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("workers was already set");
        assertThatThrownBy(() -> Nodes.striped(registry, time, 33))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("workers 33 exceeds the 32 worker IDs of layout snowflake");
        assertThatThrownBy(() -> Nodes.striped(registry, time, 2,
                b -> b.layout(Layout.parse("time=41,worker=2,shard=8,sequence=12"))))
                .hasMessageContaining("workers 2 needs a layout without a shard field");
        assertThat(registry.list("default")).as("nothing claimed").isEmpty();
    }

    @Test
    void oneWorker_isThePlainGenerator() {
        try (IdGenerator g = Snowflake.newBuilder().registry(registry).timeSource(time)
                .workers(1).build()) {
            assertThat(g).isInstanceOf(SnowflakeGenerator.class);
        }
    }

    @Test
    void close_releasesEveryWorkerWithItsHwm_andARestartIssuesAboveEverything() {
        ManualTimeSource clock = new ManualTimeSource(T0).autoAdvance();
        InMemoryRegistry store = new InMemoryRegistry(clock);
        Layout four = Layout.parse("time=41,worker=2,sequence=12");
        Map<String, long[]> minted = new LinkedHashMap<>();
        StripedGenerator g = Nodes.striped(store, clock, 4, b -> b.layout(four)
                .preferredWorkerId(2));
        assertThat(g.status().workers().get(0).workerId()).as("the preference is the first's")
                .isEqualTo(2);
        long[] before = new long[50_000];
        g.nextIds(before, 0, before.length);
        minted.put("before", before);
        long last = four.decode(before[before.length - 1]).timestampMillis();
        clock.advance(Duration.ofSeconds(2));
        g.close();
        for (int w = 0; w < 4; w++) {
            long newest = 0;
            for (long id : before) {
                IdParts p = four.decode(id);
                newest = p.workerId() == w ? Math.max(newest, p.timestampMillis()) : newest;
            }
            assertThat(store.hwm("default", 0, w)).as("final HWM of worker " + w)
                    .isEqualTo(newest).isLessThanOrEqualTo(last);
        }
        assertThat(g.status().state()).isEqualTo(LeaseState.RELEASED);
        assertThatThrownBy(g::nextId).isInstanceOf(IdUnavailableException.class)
                .extracting(e -> ((IdUnavailableException) e).reason()).isEqualTo(Reason.CLOSED);
        // The clock steps back within the wait: the restart takes the same four workers and
        // starts above each one's HWM.
        clock.set(last - 5);
        try (StripedGenerator again = Nodes.striped(store, clock, 4, b -> b.layout(four))) {
            long[] after = new long[50_000];
            again.nextIds(after, 0, after.length);
            minted.put("after", after);
        }
        IdOracle.assertDisjointHolders(four, minted);
    }

    @Test
    void summary_readyWhileAnyWorkerIssues_stateSaysWhichAreNot() {
        GeneratorStatus.Worker active = new GeneratorStatus.Worker(0, 1, LeaseState.ACTIVE, 9_000,
                "holding worker 1");
        GeneratorStatus.Worker degraded = new GeneratorStatus.Worker(0, 2, LeaseState.DEGRADED,
                4_000, "renewal failed");
        GeneratorStatus.Worker acquiring = new GeneratorStatus.Worker(-1, -1,
                LeaseState.ACQUIRING, 0, "all 32 worker IDs are held");
        GeneratorStatus.Worker lost = new GeneratorStatus.Worker(-1, -1, LeaseState.LOST, 0,
                "fenced");
        GeneratorStatus.Worker released = new GeneratorStatus.Worker(-1, -1, LeaseState.RELEASED,
                0, "closed");
        Layout l = Layout.SNOWFLAKE;

        GeneratorStatus all = GeneratorStatus.ofStripes(l, List.of(active, active), 0, null, 0);
        assertThat(all.state()).isEqualTo(LeaseState.ACTIVE);
        assertThat(all.ready()).isTrue();
        assertThat(all.detail()).isEqualTo("holding workers 1, 1 of datacenter 0");

        GeneratorStatus some = GeneratorStatus.ofStripes(l, List.of(active, degraded, acquiring),
                -3, null, 0);
        assertThat(some.state()).isEqualTo(LeaseState.DEGRADED);
        assertThat(some.ready()).isTrue();
        assertThat(some.runwayMillis()).as("shortest runway of the issuing ones").isEqualTo(4_000);
        assertThat(some.clockOffsetMillis()).isEqualTo(-3);
        assertThat(some.detail()).isEqualTo("2 of 3 workers issuing; stripe 1 (worker 2) "
                + "DEGRADED: renewal failed; stripe 2 ACQUIRING: all 32 worker IDs are held");
        assertThat(some.workers()).containsExactly(active, degraded, acquiring);

        assertThat(GeneratorStatus.ofStripes(l, List.of(acquiring, lost), 0, null, 0).state())
                .isEqualTo(LeaseState.LOST);
        assertThat(GeneratorStatus.ofStripes(l, List.of(acquiring, released), 0, null, 0).state())
                .isEqualTo(LeaseState.ACQUIRING);
        GeneratorStatus closed = GeneratorStatus.ofStripes(l, List.of(released, released), 0,
                null, 0);
        assertThat(closed.state()).isEqualTo(LeaseState.RELEASED);
        assertThat(closed.ready()).isFalse();
        assertThat(closed.runwayMillis()).isZero();
    }
}

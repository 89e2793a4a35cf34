package io.idmint;

import static io.idmint.Nodes.NO_LOOP;
import static io.idmint.Nodes.T0;
import static io.idmint.Nodes.step;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idmint.IdUnavailableException.Reason;
import io.idmint.spi.RegistryException;
import io.idmint.spi.WorkerRecord;
import io.idmint.spi.WorkerRegistry;
import io.idmint.testkit.ForwardingRegistry;
import io.idmint.testkit.IdOracle;
import io.idmint.testkit.InMemoryRegistry;
import io.idmint.testkit.ManualTimeSource;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * The time policy (docs/design.md, "Clock checks"): forward steps held back, the fleet clock
 * check, the preference yielding, the previous worker re-taken. Nodes share one real clock (the
 * store's) and each reads it through the production time source with an error of its own.
 */
class ClockChecksTest {

    private static final String NS = "default";
    private static final long HOUR = 3_600_000;

    private final ManualTimeSource real = new ManualTimeSource(T0);
    private final InMemoryRegistry store = new InMemoryRegistry(real);

    /** A node's wall clock: the real time plus an error the test sets. */
    private final class NodeClock {
        volatile long errorMillis;

        NodeClock(long errorMillis) {
            this.errorMillis = errorMillis;
        }

        HybridTimeSource source() {
            return new HybridTimeSource(() -> real.currentTimeMillis() + errorMillis,
                    real::nanoTime, Snowflake.DEFAULT_MAX_FORWARD_STEP.toMillis());
        }
    }

    /** The registry with the store's own clock, as JDBC and ZooKeeper report it. */
    private WorkerRegistry withStoreClock() {
        return new ForwardingRegistry(store) {
            @Override
            public OptionalLong storeTimeMillis() {
                return OptionalLong.of(real.currentTimeMillis());
            }
        };
    }

    private SnowflakeGenerator node(WorkerRegistry registry, TimeSource time,
            UnaryOperator<Snowflake> config) {
        return (SnowflakeGenerator) config.apply(Snowflake.newBuilder().registry(registry)
                .timeSource(time).maintenance(NO_LOOP)).build();
    }

    private SnowflakeGenerator node(TimeSource time, UnaryOperator<Snowflake> config) {
        return node(store, time, config);
    }

    /** Moves the real clock on, taking every node's protocol step each second of it. */
    private void pass(long millis, IdGenerator... nodes) {
        for (long done = 0; done < millis; done += 1_000) {
            real.advance(Duration.ofMillis(Math.min(1_000, millis - done)));
            for (IdGenerator n : nodes) {
                step(n);
            }
        }
    }

    /**
     * The HWMs ever raised: a claim that the fleet check then refuses leaves its worker stored at
     * 0, released.
     */
    private List<Long> hwms() throws RegistryException {
        return store.list(NS).stream().map(WorkerRecord::hwmMillis).filter(h -> h > 0).toList();
    }

    @Test
    void nodeAnHourBehindTheFleet_isNotReadyWithinOneClaim_andRaisesNoHwm() throws Exception {
        SnowflakeGenerator b = node(new NodeClock(0).source(), c -> c.preferredWorkerId(0));
        SnowflakeGenerator c2 = node(new NodeClock(0).source(), c -> c.preferredWorkerId(1));
        List<Long> before = hwms();
        SnowflakeGenerator a = node(new NodeClock(-HOUR).source(), c -> c);
        GeneratorStatus s = a.status();
        assertThat(s.ready()).isFalse();
        assertThat(s.reason()).isEqualTo(Reason.CLOCK_BEHIND_FLEET);
        assertThat(s.fleetSkewMillis()).isLessThan(-HOUR + 20_000);
        assertThat(s.detail()).contains("behind the high-water marks other nodes hold");
        assertThat(hwms()).as("no HWM raised").isEqualTo(before);
        assertThatThrownBy(a::nextId).isInstanceOf(IdUnavailableException.class);
        pass(5_000, b, c2, a);
        assertThat(a.status().reason()).isEqualTo(Reason.CLOCK_BEHIND_FLEET);
        assertThat(store.list(NS)).filteredOn(WorkerRecord::held).hasSize(2);
        assertThat(b.status().ready()).isTrue();
        assertThat(c2.status().ready()).isTrue();
    }

    /**
     * Without a store clock: a node restarted an hour behind takes no worker; set right, its
     * clock steps an hour forwards into agreement with the fleet (between the other holders'
     * clocks and what they reserved), which confirms the step: ready within 2 s, not after the
     * minute an unconfirmed step waits. A step past what the fleet reserved stays held back.
     */
    @Test
    void nodeAnHourBehindTheFleet_setRight_isReadyWithinSeconds_aStepPastTheFleetIsNot() {
        SnowflakeGenerator b = node(new NodeClock(0).source(), c -> c.preferredWorkerId(0));
        SnowflakeGenerator c2 = node(new NodeClock(0).source(), c -> c.preferredWorkerId(1));
        NodeClock clock = new NodeClock(-HOUR);
        SnowflakeGenerator a = node(clock.source(), c -> c);
        pass(3_000, b, c2, a);
        assertThat(a.status().reason()).isEqualTo(Reason.CLOCK_BEHIND_FLEET);
        clock.errorMillis = 0; // NTP steps it right: an hour forwards
        pass(2_000, b, c2, a);
        assertThat(a.status().ready()).as(a.status().detail()).isTrue();
        assertThat(a.status().clockOffsetMillis()).isZero();
        long ts = a.layout().decode(a.nextId()).timestampMillis();
        assertThat(ts).isBetween(real.currentTimeMillis() - 5, real.currentTimeMillis());

        clock.errorMillis = 30_000; // a bad step: 30 s ahead of every other holder
        for (int i = 0; i < 20; i++) {
            pass(1_000, b, c2, a);
            assertThat(a.status().clockOffsetMillis()).isGreaterThan(25_000);
            ts = a.layout().decode(a.nextId()).timestampMillis();
            assertThat(ts).isLessThanOrEqualTo(real.currentTimeMillis() + 1_000);
        }
    }

    @Test
    void nodeAnHourBehindTheStoreClock_isNotReady_untilTheStepIsConfirmedByTheStore() {
        WorkerRegistry registry = withStoreClock();
        NodeClock clock = new NodeClock(-HOUR);
        SnowflakeGenerator a = node(registry, clock.source(), c -> c);
        assertThat(a.status().reason()).isEqualTo(Reason.CLOCK_BEHIND_FLEET);
        assertThat(a.status().fleetSkewMillis()).isBetween(-HOUR - 10, -HOUR + 10);
        assertThat(store.hwm(NS, 0, 0)).isZero();
        clock.errorMillis = 0; // NTP steps it right: an hour forwards, confirmed by the store
        pass(2_000, a);
        assertThat(a.status().ready()).isTrue();
        assertThat(a.status().fleetSkewMillis()).isZero();
        long ts = a.layout().decode(a.nextId()).timestampMillis();
        assertThat(ts).isBetween(real.currentTimeMillis() - 5, real.currentTimeMillis());
    }

    @Test
    void nodeAnHourAheadAtStart_ofTheStoreClock_isNotReady_andRaisesNoHwm() throws Exception {
        WorkerRegistry registry = withStoreClock();
        SnowflakeGenerator b = node(registry, new NodeClock(0).source(),
                c -> c.preferredWorkerId(0));
        List<Long> before = hwms();
        SnowflakeGenerator a = node(registry, new NodeClock(HOUR).source(),
                c -> c.preferredWorkerId(1));
        assertThat(a.status().reason()).isEqualTo(Reason.CLOCK_AHEAD_OF_FLEET);
        assertThat(a.status().fleetSkewMillis()).isGreaterThanOrEqualTo(HOUR - 1_000);
        pass(3_000, b, a);
        assertThat(a.status().ready()).isFalse();
        assertThat(hwms()).hasSize(before.size());
        assertThat(store.hwm(NS, 0, 1)).isZero();
        assertThat(store.hwm(NS, 0, 0)).isLessThan(real.currentTimeMillis() + 20_000);
    }

    /**
     * Without a store clock, a node started seconds ahead claims (HWMs show no node ahead) but
     * cannot make the healthy majority look behind: the median of their HWMs is theirs.
     */
    @Test
    void nodeAheadBySeconds_cannotMakeHealthyNodesLookBehind() {
        SnowflakeGenerator b = node(new NodeClock(0).source(), c -> c);
        SnowflakeGenerator c2 = node(new NodeClock(0).source(), c -> c);
        SnowflakeGenerator a = node(new NodeClock(10_000).source(), c -> c);
        for (int round = 0; round < 5; round++) {
            pass(12_000, a, b, c2);
            a.nextId();
            for (SnowflakeGenerator healthy : List.of(b, c2)) {
                assertThat(healthy.status().ready()).as(healthy.status().detail()).isTrue();
                assertThat(healthy.status().fleetSkewMillis()).isZero();
                healthy.nextId();
            }
        }
    }

    /** Clocks within the bound, one holder paused past its renewals: nobody is flagged. */
    @Test
    void healthyNodes_areNeverFlagged_evenWhileAnotherHolderIsPaused() {
        SnowflakeGenerator a = node(new NodeClock(-900).source(), c -> c);
        SnowflakeGenerator paused = node(new NodeClock(0).source(), c -> c);
        for (int round = 0; round < 10; round++) {
            pass(25_000, a); // `paused` takes no step: its HWM goes stale
            step(paused);
            assertThat(a.status().ready()).as(a.status().detail()).isTrue();
            assertThat(a.status().fleetSkewMillis()).isBetween(-2_000L, 2_000L);
            a.nextId();
        }
        SnowflakeGenerator b = node(new NodeClock(900).source(), c -> c);
        for (int round = 0; round < 40; round++) {
            pass(1_000, a, b, paused);
            for (SnowflakeGenerator n : List.of(a, b, paused)) {
                assertThat(n.status().ready()).as(n.status().detail()).isTrue();
                assertThat(n.status().fleetSkewMillis()).isBetween(-2_000L, 2_000L);
                n.nextId();
            }
        }
        WorkerRegistry registry = withStoreClock();
        SnowflakeGenerator c = node(registry, new NodeClock(-1_900).source(), x -> x);
        pass(60_000, c);
        assertThat(c.status().ready()).isTrue();
    }

    @Test
    void heldWorker_isGivenUp_whenTwoChecksInARowFindTheClockAheadOfTheStore() {
        WorkerRegistry registry = withStoreClock();
        ManualTimeSource clock = new ManualTimeSource(real.currentTimeMillis());
        SnowflakeGenerator a = node(registry, clock, c -> c);
        a.nextId();
        long hwm = store.hwm(NS, 0, 0);
        clock.step(Duration.ofMinutes(5)); // a time source of its own that follows any step
        step(a);
        assertThat(store.hwm(NS, 0, 0)).as("no renewal with the disputed clock").isEqualTo(hwm);
        assertThat(a.status().state()).isEqualTo(LeaseState.ACTIVE);
        assertThat(a.status().detail()).contains("ahead of the store's clock")
                .contains("renewal held back");
        step(a);
        assertThat(a.status().state()).isEqualTo(LeaseState.LOST);
        assertThat(a.status().reason()).isEqualTo(Reason.CLOCK_AHEAD_OF_FLEET);
        assertThat(store.hwm(NS, 0, 0)).isLessThanOrEqualTo(hwm);
        assertThatThrownBy(a::nextId).isInstanceOf(IdUnavailableException.class)
                .extracting(e -> ((IdUnavailableException) e).reason())
                .isEqualTo(Reason.CLOCK_AHEAD_OF_FLEET);
    }

    /**
     * The fault: node A's wall clock steps +90 s and is set right 10 s later. A mints
     * nothing more than clock.max-forward-step ahead, stays ready, and a node preferring A's
     * worker after A is gone is ready at once on it.
     */
    @Test
    void forwardStepOf90sRevertedAfter10s_mintsNothingAhead_andCostsOtherNodesNothing() {
        for (WorkerRegistry registry : List.of(store, withStoreClock())) {
            NodeClock aClock = new NodeClock(0);
            SnowflakeGenerator a = node(registry, aClock.source(), c -> c.namespace("n"
                    + (registry == store ? "a" : "b")).preferredWorkerId(3));
            SnowflakeGenerator b = node(registry, new NodeClock(0).source(), c -> c.namespace("n"
                    + (registry == store ? "a" : "b")));
            aClock.errorMillis = 90_000;
            for (int i = 0; i < 100; i++) {
                real.advance(Duration.ofMillis(100));
                if (i % 10 == 0) {
                    step(a);
                    step(b);
                }
                long ts = a.layout().decode(a.nextId()).timestampMillis();
                assertThat(ts).isLessThanOrEqualTo(real.currentTimeMillis() + 1_000);
                assertThat(a.status().clockOffsetMillis()).isGreaterThan(80_000);
                assertThat(b.status().ready()).isTrue();
                b.nextId();
            }
            aClock.errorMillis = 0;
            pass(1_000, a, b);
            assertThat(a.status().clockOffsetMillis()).isZero();
            a.close();
            SnowflakeGenerator next = node(registry, new NodeClock(0).source(),
                    c -> c.namespace("n" + (registry == store ? "a" : "b")).preferredWorkerId(3));
            assertThat(next.status().ready()).isTrue();
            assertThat(next.status().workerId()).isEqualTo(3);
        }
    }

    private StripedGenerator stripedNode(WorkerRegistry registry, TimeSource time, int workers) {
        return (StripedGenerator) Snowflake.newBuilder().registry(registry).timeSource(time)
                .maintenance(NO_LOOP).workers(workers).build();
    }

    /**
     * One fleet check for a node, however many workers it holds: without a store clock a check
     * lists the namespace, so one per worker would make a namespace of W workers cost O(W^2).
     */
    @Test
    void stripedNode_readsTheFleetOnceADueCheck_notOncePerWorker() {
        AtomicInteger reads = new AtomicInteger();
        WorkerRegistry counted = new ForwardingRegistry(store) {
            @Override
            public List<WorkerRecord> heldWorkers(String namespace) throws RegistryException {
                reads.incrementAndGet();
                return super.heldWorkers(namespace);
            }
        };
        SnowflakeGenerator b = node(new NodeClock(0).source(), c -> c);
        SnowflakeGenerator c2 = node(new NodeClock(0).source(), c -> c);
        StripedGenerator a = stripedNode(counted, new NodeClock(0).source(), 16);
        assertThat(reads.get()).as("16 claims, one read").isEqualTo(1);
        pass(60_000, a, b, c2);
        assertThat(reads.get() - 1).as("a check of 16 workers every 10 s")
                .isBetween(5, 60_000 / (int) FleetClock.FRESH_MILLIS);
        assertThat(a.status().ready()).isTrue();
        assertThat(a.status().fleetSkewMillis()).isZero();
    }

    /**
     * A striped node's own workers are not the fleet: their HWMs come from its own clock, so
     * counted as others they would outvote the other nodes and hide its skew.
     */
    @Test
    void stripedNodeBehindTheFleet_isFlagged_itsOwnWorkersDoNotOutvoteTheOthers() throws Exception {
        StripedGenerator a = stripedNode(store, new NodeClock(-30_000).source(), 4);
        assertThat(a.status().ready()).as("nothing to compare with yet").isTrue();
        SnowflakeGenerator b = node(new NodeClock(0).source(), c -> c);
        SnowflakeGenerator c2 = node(new NodeClock(0).source(), c -> c);
        pass(25_000, a, b, c2);
        assertThat(a.status().ready()).isFalse();
        assertThat(a.status().reason()).isEqualTo(Reason.CLOCK_BEHIND_FLEET);
        assertThat(a.status().fleetSkewMillis()).isBetween(-32_000L, -28_000L);
        assertThat(b.status().ready()).isTrue();
        assertThat(c2.status().ready()).isTrue();
    }

    /**
     * Holders with reservation windows other than this node's, on one clock: each HWM is read
     * against its own holder's window, which its claim stored, so a node with a short window is
     * not judged behind by the difference (a 1 s node beside two 10 s nodes was "9000 ms
     * behind" and took no worker), and a node truly behind is measured by how far it is.
     */
    @Test
    void mixedReservationWindows_nobodyOnTheRightTimeIsBehind_andSkewIsTheClocksOwn() {
        UnaryOperator<Snowflake> tenSeconds = c -> c.reservationWindow(Duration.ofSeconds(10));
        UnaryOperator<Snowflake> oneSecond = c -> c.reservationWindow(Duration.ofSeconds(1));
        SnowflakeGenerator b = node(new NodeClock(0).source(), tenSeconds);
        SnowflakeGenerator c2 = node(new NodeClock(0).source(), tenSeconds);
        SnowflakeGenerator a = node(new NodeClock(0).source(), oneSecond);
        SnowflakeGenerator d = node(new NodeClock(0).source(),
                c -> c.reservationWindow(Duration.ofMinutes(1)).maxLead(Duration.ofSeconds(5)));
        for (int round = 0; round < 6; round++) {
            pass(5_000, a, b, c2, d);
            for (SnowflakeGenerator n : List.of(a, b, c2, d)) {
                assertThat(n.status().ready()).as(n.status().detail()).isTrue();
                assertThat(n.status().fleetSkewMillis()).isZero();
                n.nextId();
            }
        }
        SnowflakeGenerator behind = node(new NodeClock(-30_000).source(), oneSecond);
        assertThat(behind.status().reason()).isEqualTo(Reason.CLOCK_BEHIND_FLEET);
        assertThat(behind.status().fleetSkewMillis()).isBetween(-31_000L, -29_000L);
        SnowflakeGenerator late = node(new NodeClock(-1_500).source(), oneSecond);
        assertThat(late.status().ready()).as("within clock.max-skew").isTrue();
    }

    @Test
    void preferredWorkerAhead_yieldsToTheColdest_andTheStateChangeSaysWhy() throws Exception {
        ManualTimeSource ahead = new ManualTimeSource(real.currentTimeMillis() + 90_000);
        try (IdGenerator old = node(ahead, c -> c.preferredWorkerId(0))) {
            old.nextId(); // a node whose clock ran ahead left worker 0's HWM 90 s ahead
        }
        long hwm0 = store.hwm(NS, 0, 0);
        WorkerRegistry registry = withStoreClock();
        SnowflakeGenerator other = node(registry, new NodeClock(0).source(),
                c -> c.preferredWorkerId(5));
        List<String> changes = new CopyOnWriteArrayList<>();
        SnowflakeGenerator b = node(registry, new NodeClock(0).source(), c -> c.preferredWorkerId(0)
                .listener(new GeneratorListener() {
                    @Override
                    public void onStateChange(LeaseState from, LeaseState to, String detail) {
                        changes.add(to + ": " + detail);
                    }
                }));
        assertThat(b.status().ready()).isTrue();
        assertThat(b.status().workerId()).isNotZero();
        assertThat(changes).singleElement().asString().startsWith("ACTIVE: holding worker")
                .contains("preferred worker 0 yielded: its high-water mark is")
                .contains("ms ahead of the clock");
        assertThat(store.hwm(NS, 0, 0)).as("passed over unchanged").isEqualTo(hwm0);
        assertThat(store.list(NS)).filteredOn(WorkerRecord::held).hasSize(2);
        assertThat(other.status().ready()).isTrue();
    }

    @Test
    void onlyWorkersAhead_theNodeWaits_andTakesOneWhenTheClockCatchesUp() throws Exception {
        Layout four = Layout.parse("time=41,datacenter=5,worker=2,sequence=15,tick=1ms,"
                + "epoch=2026-01-01T00:00:00Z");
        ManualTimeSource ahead = new ManualTimeSource(real.currentTimeMillis() + 90_000);
        for (int w = 0; w < 3; w++) {
            int worker = w;
            try (IdGenerator old = node(ahead, c -> c.layout(four).preferredWorkerId(worker))) {
                old.nextId();
            }
        }
        WorkerRegistry registry = withStoreClock();
        SnowflakeGenerator holder = node(registry, new NodeClock(0).source(),
                c -> c.layout(four));
        assertThat(holder.status().workerId()).isEqualTo(3);
        List<Long> before = hwms();
        SnowflakeGenerator b = node(registry, new NodeClock(0).source(), c -> c.layout(four)
                .preferredWorkerId(0));
        assertThat(b.status().reason()).isEqualTo(Reason.CLOCK_BEHIND);
        assertThat(b.status().detail()).contains("every free worker's is ahead");
        assertThat(hwms()).isEqualTo(before);
        assertThat(store.list(NS)).filteredOn(WorkerRecord::held).hasSize(1);
        pass(75_000, b, holder);
        assertThat(b.status().ready()).isFalse();
        pass(20_000, b, holder);
        assertThat(b.status().ready()).isTrue();
    }

    @Test
    void afterLost_theNodeReTakesItsPreviousWorker_notTheColdest() {
        SnowflakeGenerator a = node(new NodeClock(0).source(), c -> c);
        int first = a.status().workerId();
        store.setAvailable(false); // an outage past the store timeout: the worker is given up
        pass(40_000, a);
        assertThat(a.status().workerId()).isEqualTo(-1);
        store.setAvailable(true);
        step(a);
        assertThat(a.status().ready()).isTrue();
        assertThat(a.status().workerId()).as("colder workers were free").isEqualTo(first);
    }

    /** Many threads, the wall clock stepped both ways, the real maintenance loop: no duplicate. */
    @Test
    void manyThreads_clockSteppedBackAndForth_idsStayUnique_andNeverFarAhead() throws Exception {
        long[] errors = {0, 400, 90_000, 0, -2_000, 900, -90_000, 0, 60_000, 300};
        AtomicLong error = new AtomicLong();
        HybridTimeSource time = new HybridTimeSource(
                () -> System.currentTimeMillis() + error.get(), System::nanoTime, 1_000);
        InMemoryRegistry registry = new InMemoryRegistry(TimeSource.system());
        List<long[]> all = new CopyOnWriteArrayList<>();
        try (IdGenerator g = Snowflake.newBuilder().registry(registry).timeSource(time)
                .reservationWindow(Duration.ofMillis(300)).build()) {
            long end = System.nanoTime() + 1_500_000_000L;
            Thread stepper = new Thread(() -> {
                for (int i = 0; System.nanoTime() < end; i++) {
                    error.set(errors[i % errors.length]);
                    java.util.concurrent.locks.LockSupport.parkNanos(40_000_000);
                }
            });
            stepper.start();
            IdOracle.together(4, t -> {
                List<Long> mine = new ArrayList<>();
                while (System.nanoTime() < end) {
                    try {
                        long id = g.nextId();
                        long ahead = g.layout().decode(id).timestampMillis()
                                - System.currentTimeMillis();
                        assertThat(ahead).as("ms ahead of real time").isLessThanOrEqualTo(1_000);
                        mine.add(id);
                    } catch (IdUnavailableException e) {
                        Thread.yield();
                    }
                }
                all.add(mine.stream().mapToLong(Long::longValue).toArray());
            });
            stepper.join();
        }
        long total = 0;
        for (long[] ids : all) {
            IdOracle.assertStrictlyIncreasing(ids);
            total += ids.length;
        }
        IdOracle.assertUnique(all.toArray(new long[0][]));
        assertThat(total).isGreaterThan(1_000);
    }
}

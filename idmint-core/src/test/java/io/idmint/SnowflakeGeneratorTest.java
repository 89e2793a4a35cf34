package io.idmint;

import static io.idmint.Nodes.T0;
import static io.idmint.Nodes.ms;
import static io.idmint.Nodes.step;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idmint.IdUnavailableException.Reason;
import io.idmint.testkit.IdOracle;
import io.idmint.testkit.InMemoryRegistry;
import io.idmint.testkit.ManualTimeSource;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class SnowflakeGeneratorTest {

    private final ManualTimeSource time = new ManualTimeSource(T0).autoAdvance();
    private final InMemoryRegistry registry = new InMemoryRegistry(time);

    @Test
    void nextId_isPositiveIncreasing_andDecodesToItsWorker() {
        try (IdGenerator g = Nodes.manual(registry, time,
                b -> b.datacenterId(3).preferredWorkerId(7))) {
            long a = g.nextId();
            long b = g.nextId();
            assertThat(a).isPositive();
            assertThat(b).isGreaterThan(a);
            IdParts p = Layout.SNOWFLAKE.decode(b);
            assertThat(p.timestampMillis()).isEqualTo(T0);
            assertThat(p.datacenterId()).isEqualTo(3);
            assertThat(p.workerId()).isEqualTo(7);
            assertThat(p.sequence()).isEqualTo(1);
            assertThat(g.status().state()).isEqualTo(LeaseState.ACTIVE);
        }
    }

    @Test
    void sequenceExhausted_waitsForTheNextTick_neverRunsAhead() {
        try (IdGenerator g = Nodes.manual(registry, time)) {
            long[] ids = new long[4096 * 3 + 5];
            for (int i = 0; i < ids.length; i++) {
                ids[i] = g.nextId();
                assertThat(Layout.SNOWFLAKE.decode(ids[i]).timestampMillis())
                        .isLessThanOrEqualTo(time.currentTimeMillis());
            }
            IdOracle.assertStrictlyIncreasing(ids);
            assertThat(time.currentTimeMillis()).isEqualTo(T0 + 3);
            assertThat(Layout.SNOWFLAKE.decode(ids[4096]).sequence()).isZero();
        }
    }

    @Test
    void nextIdsNow_takesWhatTheTickHas_neverWaits_theRestComesATickLaterAboveIt() {
        // The clock advances only when the generator waits: an unchanged clock proves no wait.
        try (IdGenerator g = Nodes.manual(registry, time)) {
            long[] ids = new long[10_000];

            int k = g.nextIdsNow(ids, 0, ids.length);
            assertThat(k).as("one tick's sequence").isEqualTo(4096);
            assertThat(g.nextIdsNow(ids, k, ids.length)).as("the tick is used up").isEqualTo(k);
            assertThat(time.currentTimeMillis()).as("never waited").isEqualTo(T0);
            time.advance(ms(1));
            k = g.nextIdsNow(ids, k, ids.length);
            assertThat(k).isEqualTo(8192);
            time.advance(ms(1));
            assertThat(g.nextIdsNow(ids, k, ids.length)).isEqualTo(ids.length);

            assertThat(time.currentTimeMillis()).isEqualTo(T0 + 2);
            IdOracle.assertStrictlyIncreasing(ids);
            assertThat(Layout.SNOWFLAKE.decode(ids[ids.length - 1]).timestampMillis())
                    .isEqualTo(T0 + 2);
            assertThat(g.nextId()).isGreaterThan(ids[ids.length - 1]);
        }
    }

    @Test
    void nextIdsNow_clockALittleBehindTheLastId_takesNothingUntilItCatchesUp() {
        try (IdGenerator g = Nodes.manual(registry, time)) {
            time.advance(ms(100));
            long last = g.nextId();
            time.step(ms(-3)); // within the default max wait (10 ms): nextIds would wait
            long[] ids = new long[5];

            assertThat(g.nextIdsNow(ids, 0, ids.length)).isZero();
            assertThat(time.currentTimeMillis()).as("never waited").isEqualTo(T0 + 97);
            time.advance(ms(3));
            assertThat(g.nextIdsNow(ids, 0, ids.length)).isEqualTo(ids.length);

            assertThat(ids[0]).isGreaterThan(last);
            IdOracle.assertStrictlyIncreasing(ids);
            assertThat(g.status().state()).isEqualTo(LeaseState.ACTIVE);
        }
    }

    @Test
    void nextIdsNow_badRange_throwsAndTakesNothing() {
        try (IdGenerator g = Nodes.manual(registry, time)) {
            long before = g.nextId();
            assertThatThrownBy(() -> g.nextIdsNow(new long[4], 2, 5))
                    .isInstanceOf(IndexOutOfBoundsException.class)
                    .hasMessage("range [2, 5) of an array of 4");
            assertThat(g.nextIdsNow(new long[4], 2, 2)).isEqualTo(2);
            assertThat(g.nextId()).as("nothing taken").isEqualTo(before + 1);
        }
    }

    @Test
    void maxLead_borrowsAheadOfTheClock_upToTheLead() {
        try (IdGenerator g = Nodes.manual(registry, time, b -> b.maxLead(ms(2)))) {
            long[] ids = new long[4096 * 3];
            for (int i = 0; i < ids.length; i++) {
                ids[i] = g.nextId();
            }
            IdOracle.assertStrictlyIncreasing(ids);
            assertThat(time.currentTimeMillis()).as("borrowed, did not wait").isEqualTo(T0);
            assertThat(Layout.SNOWFLAKE.decode(ids[ids.length - 1]).timestampMillis())
                    .isEqualTo(T0 + 2);
            g.nextId();
            assertThat(time.currentTimeMillis()).as("lead used up: waits one tick").isEqualTo(T0
                    + 1);
        }
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 10})
    void clockStepsBackWithinMaxWait_waitsAndStaysUnique(long backMillis) {
        try (IdGenerator g = Nodes.manual(registry, time)) {
            time.advance(ms(50));
            long before = g.nextId();
            time.step(ms(-backMillis));
            long after = g.nextId();
            assertThat(after).isGreaterThan(before);
            assertThat(time.currentTimeMillis()).as("waited for the clock").isEqualTo(T0 + 50);
            assertThat(g.status().state()).isEqualTo(LeaseState.ACTIVE);
        }
    }

    @ParameterizedTest
    @ValueSource(longs = {1_000, 3_600_000})
    void clockStepsBackBeyondMaxWait_failPolicy_refusesReleasesAndRejoins(long backMillis) {
        ManualTimeSource clock = new ManualTimeSource(T0); // no auto-advance: the test moves time
        InMemoryRegistry store = new InMemoryRegistry(clock);
        try (SnowflakeGenerator g = Nodes.manual(store, clock)) {
            clock.advance(ms(100));
            long before = g.nextId();
            clock.step(ms(-backMillis));
            assertThatThrownBy(g::nextId).isInstanceOf(IdUnavailableException.class)
                    .extracting(e -> ((IdUnavailableException) e).reason())
                            .isEqualTo(Reason.CLOCK_BEHIND);
            step(g); // the maintenance thread reacts: release with the final HWM
            assertThat(g.status().state()).isEqualTo(LeaseState.LOST);
            assertThat(store.hwm("default", 0, 0)).isEqualTo(T0 + 100);
            step(g); // the clock is still behind what this node issued, so it waits
            assertThat(g.status().state()).isEqualTo(LeaseState.ACQUIRING);
            assertThat(g.status().detail()).contains("behind the last ID this node issued");
            assertThatThrownBy(g::nextId).isInstanceOf(IdUnavailableException.class);
            clock.advance(ms(backMillis + 1));
            step(g);
            assertThat(g.status().state()).isEqualTo(LeaseState.ACTIVE);
            assertThat(g.nextId()).isGreaterThan(before);
        }
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 10, 1_000, 3_600_000})
    void clockStepsBack_continuePolicy_keepsIssuingOnTheLogicalClock(long backMillis) {
        try (IdGenerator g = Nodes.manual(registry, time,
                b -> b.clockPolicy(ClockPolicy.CONTINUE))) {
            time.advance(ms(20));
            long[] ids = new long[10_000];
            ids[0] = g.nextId();
            time.step(ms(-backMillis));
            for (int i = 1; i < ids.length; i++) {
                ids[i] = g.nextId();
            }
            IdOracle.assertStrictlyIncreasing(ids);
            assertThat(Layout.SNOWFLAKE.decode(ids[ids.length - 1]).timestampMillis())
                    .as("logical clock: last issued time, counting the sequence on")
                    .isBetween(T0 + 20, T0 + 22);
        }
    }

    @Test
    void clockStrobesByHalfASecond_neverADuplicate() {
        for (ClockPolicy policy : ClockPolicy.values()) {
            ManualTimeSource clock = new ManualTimeSource(T0).autoAdvance();
            InMemoryRegistry store = new InMemoryRegistry(clock);
            List<Long> ids = new ArrayList<>();
            try (SnowflakeGenerator g = Nodes.manual(store, clock, b -> b.clockPolicy(policy))) {
                for (int round = 0; round < 400; round++) {
                    clock.step(ms(round % 2 == 0 ? 500 : -500));
                    clock.advance(ms(3));
                    for (int i = 0; i < 300; i++) {
                        try {
                            ids.add(g.nextId());
                        } catch (IdUnavailableException e) {
                            assertThat(policy).isEqualTo(ClockPolicy.FAIL);
                            assertThat(e.reason()).isIn(Reason.CLOCK_BEHIND, Reason.NO_LEASE);
                            step(g);
                        }
                    }
                    step(g);
                }
            }
            long[] all = ids.stream().mapToLong(Long::longValue).toArray();
            IdOracle.assertStrictlyIncreasing(all);
            assertThat(all.length).as(policy + " issued IDs").isGreaterThan(1_000);
        }
    }

    @Test
    void storeOutage_degradesWithinRunway_thenRefuses_thenRecovers() {
        ManualTimeSource clock = new ManualTimeSource(T0);
        InMemoryRegistry store = new InMemoryRegistry(clock);
        try (SnowflakeGenerator g = Nodes.manual(store, clock)) {
            long first = g.nextId();
            store.setAvailable(false);
            clock.advance(Duration.ofSeconds(4));
            step(g);
            assertThat(g.status().state()).isEqualTo(LeaseState.DEGRADED);
            assertThat(g.status().runwayMillis()).isEqualTo(6_001);
            assertThat(g.nextId()).isGreaterThan(first);
            clock.advance(Duration.ofSeconds(7));
            assertThatThrownBy(g::nextId).isInstanceOf(IdUnavailableException.class)
                    .extracting(e -> ((IdUnavailableException) e).reason())
                            .isEqualTo(Reason.RUNWAY_EXHAUSTED);
            assertThat(g.status().ready()).isFalse();
            clock.advance(Duration.ofSeconds(5));
            step(g);
            assertThat(g.status().state()).as("store unreachable past the timeout")
                    .isEqualTo(LeaseState.LOST);
            store.setAvailable(true);
            step(g);
            assertThat(g.status().state()).isEqualTo(LeaseState.ACTIVE);
            assertThat(g.nextId()).isGreaterThan(first);
        }
    }

    /**
     * A zombie: node A pauses past its lease, node B takes the only worker, A resumes. A must not
     * mint inside B's range, and must refuse until it re-claims.
     */
    @Test
    void pausedNodePastItsLease_andATakeover_haveDisjointRanges() {
        ManualTimeSource clock = new ManualTimeSource(T0).autoAdvance();
        InMemoryRegistry store = new InMemoryRegistry(clock);
        Layout tiny = Layout.parse("time=41,worker=0,sequence=12");
        Map<String, long[]> minted = new TreeMap<>();
        SnowflakeGenerator a = Nodes.manual(store, clock, b -> b.layout(tiny));
        minted.put("a-before", new long[] {a.nextId(), a.nextId()});
        clock.advance(Duration.ofSeconds(31)); // A is paused: no keepalive, lease expires
        try (SnowflakeGenerator b = Nodes.manual(store, clock, x -> x.layout(tiny))) {
            assertThat(b.status().state()).isEqualTo(LeaseState.ACTIVE);
            minted.put("b", new long[] {b.nextId(), b.nextId()});
            // A resumes: its reservation ended long ago, so it cannot mint.
            assertThatThrownBy(a::nextId).isInstanceOf(IdUnavailableException.class)
                    .extracting(e -> ((IdUnavailableException) e).reason())
                            .isEqualTo(Reason.RUNWAY_EXHAUSTED);
            step(a);
            assertThat(a.status().state()).isEqualTo(LeaseState.LOST);
            step(a);
            assertThat(a.status().state()).as("pool of one is taken")
                    .isEqualTo(LeaseState.ACQUIRING);
            assertThat(a.status().detail()).contains("held");
            IdOracle.assertDisjointHolders(tiny, minted);
        }
        step(a); // B released: A re-claims above B's final HWM
        minted.put("a-after", new long[] {a.nextId()});
        IdOracle.assertDisjointHolders(tiny, minted);
        a.close();
    }

    @Test
    void shardKey_fillsTheShardField() {
        try (IdGenerator g = Nodes.manual(new InMemoryRegistry(time), time,
                b -> b.layout(Layout.INSTAGRAM))) {
            long id = g.nextId(123_456);
            assertThat(Layout.INSTAGRAM.decode(id).shardId()).isEqualTo(123_456 % 8192);
            assertThat(Layout.INSTAGRAM.decode(g.nextId(-1)).shardId()).isEqualTo(8191);
        }
        try (IdGenerator g = Nodes.manual(registry, time)) {
            assertThatThrownBy(() -> g.nextId(5)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("no shard field");
        }
    }

    @Test
    void nextIds_fillsTheRangeInOrder_acrossTicks() {
        try (IdGenerator g = Nodes.manual(registry, time)) {
            long[] ids = new long[10_000];
            g.nextIds(ids, 0, 5_000);
            g.nextIds(ids, 5_000, ids.length);
            IdOracle.assertStrictlyIncreasing(ids);
            assertThat(time.currentTimeMillis()).isEqualTo(T0 + 2);
            assertThatThrownBy(() -> g.nextIds(ids, 5,
                    3)).isInstanceOf(IndexOutOfBoundsException.class);
        }
    }

    @Test
    void timeFieldRunsOut_isRefusedNeverWrapped() {
        Layout shortLived = Layout.parse("time=16,worker=2,sequence=4,tick=1ms,epoch="
                + (T0 - 65_530));
        try (IdGenerator g = Nodes.manual(registry, time, b -> b.layout(shortLived))) {
            time.advance(ms(5));
            assertThat(g.nextId()).isPositive();
            time.advance(ms(10));
            assertThatThrownBy(g::nextId).isInstanceOf(IdUnavailableException.class)
                    .extracting(e -> ((IdUnavailableException) e).reason())
                            .isEqualTo(Reason.TIME_EXHAUSTED);
        }
    }

    @Test
    void close_releasesWithTheLastIssuedTime_andRefusesAfter() {
        SnowflakeGenerator g = Nodes.manual(registry, time);
        time.advance(ms(42));
        g.nextId();
        time.advance(ms(1_000));
        g.close();
        assertThat(registry.hwm("default", 0, 0)).isEqualTo(T0 + 42);
        assertThat(g.status().state()).isEqualTo(LeaseState.RELEASED);
        assertThatThrownBy(g::nextId).isInstanceOf(IdUnavailableException.class)
                .extracting(e -> ((IdUnavailableException) e).reason()).isEqualTo(Reason.CLOSED);
        g.close();
    }

    @Test
    void builder_rejectsBadSettingsNamingThem() {
        assertThatThrownBy(() -> Snowflake.newBuilder().layout(Layout.SNOWFLAKE)
                .layout(Layout.REGION))
                .isInstanceOf(IllegalStateException.class)
                        .hasMessageContaining("layout was already set");
        assertThatThrownBy(() -> Snowflake.newBuilder().build())
                .hasMessageContaining("no registry");
        assertThatThrownBy(() -> Nodes.manual(registry, time, b -> b.datacenterId(32)))
                .hasMessageContaining("datacenter 32 does not fit");
        assertThatThrownBy(() -> Nodes.manual(registry, time, b -> b.preferredWorkerId(99)))
                .hasMessageContaining("worker 99 does not fit");
        assertThatThrownBy(() -> Nodes.manual(registry, time,
                b -> b.layout(Layout.parse("snowflake,epoch=2030-01-01T00:00:00Z"))))
                .hasMessageContaining("is in the future");
        assertThatThrownBy(() -> Nodes.manual(registry, time,
                b -> b.leaseTtl(Duration.ofSeconds(20))))
                .hasMessageContaining("lease.ttl (20s) must be at least 3 x lease.keepalive (10s)");
        assertThatThrownBy(() -> Snowflake.newBuilder().maxClockWait(Duration.ofMillis(-1)))
                .hasMessageContaining("clock.max-wait");
        assertThatThrownBy(() -> Snowflake.newBuilder().reservationWindow(Duration.ZERO))
                .hasMessageContaining("lease.reservation must be positive");
    }

    @Test
    void builder_durationsPastTheirMax_areRefusedNamingTheMax() {
        // Regression: lease.reservation 100000000h was taken, and a restarted node then waited
        // for its own high-water mark for good.
        Duration huge = Duration.ofHours(100_000_000);
        assertThatThrownBy(() -> Snowflake.newBuilder().reservationWindow(huge))
                .hasMessage("lease.reservation must be at most 5m, got 100000000h");
        assertThatThrownBy(() -> Snowflake.newBuilder().leaseTtl(huge))
                .hasMessage("lease.ttl must be at most 10m, got 100000000h");
        assertThatThrownBy(() -> Snowflake.newBuilder().keepaliveInterval(huge))
                .hasMessageContaining("lease.keepalive must be at most 10m");
        assertThatThrownBy(() -> Snowflake.newBuilder().storeTimeout(huge))
                .hasMessageContaining("lease.store-timeout must be at most 10m");
        assertThatThrownBy(() -> Snowflake.newBuilder().maxClockSkew(huge))
                .hasMessageContaining("clock.max-skew must be at most 10m");
        assertThatThrownBy(() -> Snowflake.newBuilder().maxForwardStep(huge))
                .hasMessageContaining("clock.max-forward-step must be at most 1m");
        assertThatThrownBy(() -> Snowflake.newBuilder().maxLead(huge))
                .hasMessageContaining("sequence.max-lead must be between 0 and 1m");
        Snowflake.newBuilder().reservationWindow(Snowflake.MAX_RESERVATION)
                .leaseTtl(Snowflake.MAX_LEASE).maxClockSkew(Snowflake.MAX_CLOCK_SKEW)
                .maxForwardStep(Snowflake.MAX_FORWARD_STEP).maxLead(Snowflake.MAX_LEAD)
                .maxClockWait(Snowflake.MAX_CLOCK_WAIT);
    }

    @Test
    void registryRefusingTheLayout_failsTheBuild() {
        Nodes.manual(registry, time).close();
        assertThatThrownBy(() -> Nodes.manual(registry, time, b -> b.layout(Layout.REGION)))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("uses layout");
    }

    /** The uniqueness harness on the real clock: 2 threads x 1,000,000 IDs. */
    @Test
    void twoThreadsOnTheSystemClock_millionEach_noDuplicate() throws Exception {
        InMemoryRegistry store = new InMemoryRegistry(TimeSource.system());
        try (IdGenerator g = Snowflake.newBuilder().registry(store).build()) {
            IdOracle.mintConcurrently(g, 2, 1_000_000);
        }
    }

    /** More threads than cores, with borrowing on, and the manual clock racing them. */
    @Test
    void fourThreadsWithLead_onAnAdvancingClock_noDuplicate() throws Exception {
        try (IdGenerator g = Nodes.manual(registry, time, b -> b.maxLead(ms(3)))) {
            IdOracle.mintConcurrently(g, 4, 200_000);
        }
    }
}

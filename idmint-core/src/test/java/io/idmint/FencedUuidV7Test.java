package io.idmint;

import static io.idmint.Nodes.T0;
import static io.idmint.Nodes.ms;
import static io.idmint.Nodes.step;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idmint.testkit.IdOracle;
import io.idmint.testkit.InMemoryRegistry;
import io.idmint.testkit.ManualTimeSource;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

class FencedUuidV7Test {

    /** Every preset, and custom layouts across tick lengths, epochs and field widths. */
    private static final List<Layout> LAYOUTS = layouts();

    private static List<Layout> layouts() {
        List<Layout> all = new ArrayList<>(Layout.presets());
        for (String spec : List.of("time=41,sequence=12,tick=1ms,epoch=1970-01-01T00:00:00Z",
                "time=47,sequence=16", "time=20,worker=3,sequence=2,tick=1s",
                "time=36,datacenter=2,worker=12,shard=4,sequence=9,tick=100ms",
                "time=30,sequence=4,tick=10ms,epoch=2000-02-29T12:00:00Z",
                "time=1,worker=31,sequence=31,tick=1ms")) {
            all.add(Layout.parse(spec));
        }
        return all;
    }

    @Test
    void everyLayout_randomIds_roundTrip_areVersion7_andCarryTheIdsTime() {
        SplittableRandom rnd = new SplittableRandom(1);
        for (Layout layout : LAYOUTS) {
            for (int i = 0; i < 20_000; i++) {
                long id = randomId(layout, rnd);
                UUID uuid = FencedUuidV7.of(id, layout);
                assertThat(uuid.version()).as(layout.name()).isEqualTo(7);
                assertThat(uuid.variant()).as(layout.name()).isEqualTo(2);
                assertThat(UUID.fromString(uuid.toString())).isEqualTo(uuid);
                assertThat(FencedUuidV7.idOf(uuid, layout)).as(layout.name() + " " + uuid)
                        .isEqualTo(id);
                assertThat(uuid.getMostSignificantBits() >>> 16).as("unix_ts_ms")
                        .isEqualTo(layout.decode(id).timestampMillis());
                assertThat(FencedUuidV7.decode(uuid, layout)).isEqualTo(layout.decode(id));
            }
        }
    }

    @Test
    void uuidsSortExactlyAsTheirIds_randomPairsAndNeighbours() {
        SplittableRandom rnd = new SplittableRandom(2);
        for (Layout layout : LAYOUTS) {
            for (int i = 0; i < 20_000; i++) {
                long a = randomId(layout, rnd);
                long b = i % 2 == 0 ? randomId(layout, rnd) : neighbour(layout, a);
                if (a == b) {
                    continue;
                }
                int ids = layout.unsigned() ? Long.compareUnsigned(a, b) : Long.compare(a, b);
                int uuids = IdOracle.compareUnsigned(FencedUuidV7.of(a, layout),
                        FencedUuidV7.of(b, layout));
                assertThat(Integer.signum(uuids)).as(layout.name() + ": " + a + " vs " + b)
                        .isEqualTo(Integer.signum(ids));
            }
        }
    }

    @Test
    void oneIdTwice_differsOnlyInTheRandomBits() {
        long id = Layout.SNOWFLAKE.compose(123_456, 3, 7, 0, 42);
        UUID a = FencedUuidV7.of(id, Layout.SNOWFLAKE);
        UUID b = FencedUuidV7.of(id, Layout.SNOWFLAKE);
        assertThat(a).isNotEqualTo(b);
        // time 48, version 4, rand_a 12 (datacenter 5, worker 5, sequence 2 of 12), variant 2,
        // then the sequence's last 10 bits: the first 82 bits are the ID's; 52 random.
        assertThat(a.getMostSignificantBits()).isEqualTo(b.getMostSignificantBits());
        assertThat(a.getLeastSignificantBits() >>> 52)
                .isEqualTo(b.getLeastSignificantBits() >>> 52);
        assertThat(a.getMostSignificantBits() & 0xFFF)
                .isEqualTo((3L << 7) | (7L << 2) | (42 >>> 10));
    }

    @Test
    void generatorOnFourThreads_clockSteppingBothWays_uniqueAndIncreasingPerThread()
            throws Exception {
        ManualTimeSource time = new ManualTimeSource(T0).autoAdvance();
        InMemoryRegistry registry = new InMemoryRegistry(time);
        int threads = 4;
        int each = 100_000;
        UUID[][] got = new UUID[threads][each];
        AtomicBoolean done = new AtomicBoolean();
        try (SnowflakeGenerator g = Nodes.manual(registry, time,
                b -> b.maxLead(ms(3)).clockPolicy(ClockPolicy.CONTINUE))) {
            FencedUuidV7 uuids = FencedUuidV7.over(g);
            // The clock jumps 40 ms on and 37 back, again and again, while the lease is kept.
            Thread stepper = new Thread(() -> {
                while (!done.get()) {
                    time.step(ms(40));
                    step(g);
                    time.step(ms(-37));
                    java.util.concurrent.locks.LockSupport.parkNanos(200_000);
                }
            });
            stepper.start();
            try {
                IdOracle.together(threads, t -> {
                    for (int i = 0; i < each; i += 100) {
                        if (i % 200 == 0) {
                            for (int k = 0; k < 100; k++) {
                                got[t][i + k] = uuids.next();
                            }
                        } else {
                            uuids.next(got[t], i, i + 100);
                        }
                    }
                });
            } finally {
                done.set(true);
                stepper.join();
            }
        }
        Set<UUID> all = new HashSet<>();
        long[][] ids = new long[threads][each];
        for (int t = 0; t < threads; t++) {
            for (int i = 0; i < each; i++) {
                UUID u = got[t][i];
                assertThat(all.add(u)).as("duplicate UUID %s", u).isTrue();
                if (i > 0) {
                    assertThat(IdOracle.compareUnsigned(u, got[t][i - 1]))
                            .as("thread %d, #%d", t, i).isPositive();
                }
                ids[t][i] = FencedUuidV7.idOf(u, Layout.SNOWFLAKE);
            }
            IdOracle.assertStrictlyIncreasing(ids[t]);
        }
        IdOracle.assertUnique(ids);
    }

    @Test
    void stripedGenerator_uuidsIncreasePerThreadAsItsIdsDo() throws Exception {
        ManualTimeSource time = new ManualTimeSource(T0).autoAdvance();
        InMemoryRegistry registry = new InMemoryRegistry(time);
        try (IdGenerator g = Snowflake.newBuilder().registry(registry).timeSource(time)
                .workers(2).maintenance(Nodes.NO_LOOP).build()) {
            FencedUuidV7 uuids = FencedUuidV7.over(g);
            UUID[][] got = new UUID[2][50_000];
            IdOracle.together(2, t -> {
                for (int i = 0; i < got[t].length; i++) {
                    got[t][i] = uuids.next();
                }
            });
            Set<UUID> all = new HashSet<>();
            Set<Integer> workers = new HashSet<>();
            for (UUID[] mine : got) {
                for (int i = 0; i < mine.length; i++) {
                    assertThat(all.add(mine[i])).isTrue();
                    workers.add(FencedUuidV7.decode(mine[i], g.layout()).workerId());
                    if (i > 0) {
                        assertThat(IdOracle.compareUnsigned(mine[i], mine[i - 1])).isPositive();
                    }
                }
            }
            assertThat(workers).hasSize(2);
        }
    }

    @Test
    void lostLease_refusesUuidsAsIds() {
        ManualTimeSource time = new ManualTimeSource(T0);
        InMemoryRegistry store = new InMemoryRegistry(time);
        try (SnowflakeGenerator g = Nodes.manual(store, time)) {
            FencedUuidV7 uuids = FencedUuidV7.over(g);
            UUID first = uuids.next();
            store.setAvailable(false);
            time.advance(java.time.Duration.ofSeconds(11));
            step(g);
            assertThatThrownBy(uuids::next).isInstanceOf(IdUnavailableException.class);
            UUID[] batch = new UUID[3];
            assertThatThrownBy(() -> uuids.next(batch, 0, 3))
                    .isInstanceOf(IdUnavailableException.class);
            assertThat(batch).containsOnlyNulls();
            store.setAvailable(true);
            time.advance(java.time.Duration.ofSeconds(5));
            step(g);
            step(g);
            assertThat(IdOracle.compareUnsigned(uuids.next(), first)).isPositive();
        }
    }

    @Test
    void badInput_isRefusedNamingTheProblem() {
        UUID v4 = UUID.fromString("f47ac10b-58cc-4372-a567-0e02b2c3d479");
        assertThatThrownBy(() -> FencedUuidV7.idOf(v4, Layout.SNOWFLAKE))
                .hasMessage("UUID f47ac10b-58cc-4372-a567-0e02b2c3d479 is not a UUIDv7: version "
                        + "4, variant 2 (expected version 7, variant 2, RFC 9562)");
        long id = Layout.SONYFLAKE.compose(1000, 0, 5, 0, 1);
        UUID u = FencedUuidV7.of(id, Layout.SONYFLAKE);
        UUID offTick = new UUID(u.getMostSignificantBits() + (3L << 16),
                u.getLeastSignificantBits());
        assertThatThrownBy(() -> FencedUuidV7.idOf(offTick, Layout.SONYFLAKE))
                .hasMessageContaining("is no fenced UUID of layout sonyflake: its time "
                        + "2026-01-01T00:00:10.003Z is not a tick of the layout (epoch "
                        + "2026-01-01T00:00:00Z, ticks of 10 ms, until");
        UUID beforeEpoch = FencedUuidV7.of(Layout.TWITTER.compose(5, 0, 0, 0, 0), Layout.TWITTER);
        assertThatThrownBy(() -> FencedUuidV7.idOf(beforeEpoch, Layout.SNOWFLAKE))
                .hasMessageContaining("is no fenced UUID of layout snowflake: its time "
                        + "2010-11-04T01:42:54.662Z is not a tick");
        assertThatThrownBy(() -> FencedUuidV7.of(-1, Layout.SNOWFLAKE))
                .hasMessage("ID -1 is not an ID of layout snowflake (0 to 2^63-1)");
        assertThatThrownBy(() -> FencedUuidV7.of(1L << 53, Layout.JS_SAFE))
                .hasMessage("ID 9007199254740992 is not an ID of layout js-safe (0 to 2^53-1)");
        Layout tooLong = Layout.parse("time=48,sequence=12");
        assertThatThrownBy(() -> FencedUuidV7.requireFits(tooLong))
                .hasMessageContaining("has times a UUIDv7 cannot hold (epoch "
                        + "2026-01-01T00:00:00Z, time field until")
                .hasMessageContaining("a UUIDv7 holds 1970-01-01 to "
                        + "+10889-08-02T05:31:50.655Z)");
        assertThatThrownBy(() -> FencedUuidV7.of(1, tooLong))
                .hasMessageStartingWith("layout time=48,sequence=12,tick=1ms,"
                        + "epoch=2026-01-01T00:00:00Z has times a UUIDv7");
    }

    private static long randomId(Layout layout, SplittableRandom rnd) {
        int bits = layout.totalBits();
        long id = bits == 64 ? rnd.nextLong() : rnd.nextLong() >>> (64 - bits);
        if (rnd.nextInt(8) == 0) { // the edges of the time field
            int low = bits - layout.bits(Layout.Field.TIME);
            long tick = rnd.nextBoolean() ? 0 : layout.maxTick();
            id = tick << low | (id & ((1L << low) - 1));
        }
        return id;
    }

    private static long neighbour(Layout layout, long id) {
        long max = layout.unsigned() ? -1L : (1L << layout.totalBits()) - 1;
        return id == max ? id - 1 : id + 1;
    }

}

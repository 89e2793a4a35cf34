package io.idmint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idmint.Layout.Field;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LayoutTest {

    @Test
    void snowflake_capacityArithmetic() {
        Layout l = Layout.SNOWFLAKE;
        assertThat(l.spec()).isEqualTo("time=41,datacenter=5,worker=5,sequence=12,tick=1ms,"
                + "epoch=2026-01-01T00:00:00Z");
        assertThat(l.idsPerTick()).isEqualTo(4096);
        assertThat(l.idsPerSecond()).isEqualTo(4_096_000);
        assertThat(l.maxWorkerId()).isEqualTo(31);
        assertThat(l.maxDatacenterId()).isEqualTo(31);
        assertThat(l.shift(Field.TIME)).isEqualTo(22);
        assertThat(l.shift(Field.SEQUENCE)).isZero();
        assertThat(l.exhaustion()).isEqualTo(Instant.parse("2095-09-07T15:47:35.552Z"));
    }

    @Test
    void presets_parseByName_andRoundTripTheirSpec() {
        for (Layout p : Layout.presets()) {
            assertThat(Layout.parse(p.name())).isSameAs(p);
            assertThat(Layout.parse(p.spec())).isSameAs(p);
            assertThat(p.totalBits()).isLessThanOrEqualTo(p == Layout.DISCORD ? 64 : 63);
        }
        assertThat(Layout.JS_SAFE.totalBits()).isEqualTo(53);
        assertThat(Layout.SONYFLAKE.fields()).containsExactly(Field.TIME, Field.SEQUENCE,
                Field.WORKER);
        assertThat(Layout.SONYFLAKE.tickMillis()).isEqualTo(10);
        assertThat(Layout.UID_GENERATOR.tickMillis()).isEqualTo(1000);
        assertThat(Layout.INSTAGRAM.maxShardId()).isEqualTo(8191);
    }

    @Test
    void parse_presetWithEpoch_isCustom() {
        Layout l = Layout.parse("snowflake,epoch=2020-01-01T00:00:00Z");
        assertThat(l.name()).isEqualTo("custom");
        assertThat(l.epochMillis()).isEqualTo(Instant.parse("2020-01-01T00:00:00Z").toEpochMilli());
        assertThat(l.idsPerTick()).isEqualTo(4096);
        assertThat(Layout.parse("snowflake,epoch=1767225600000")).isSameAs(Layout.SNOWFLAKE);
    }

    @Test
    void parse_badSpecs_nameTheProblem() {
        assertBad("", "empty");
        assertBad("snowflak", "unknown layout preset 'snowflak'");
        assertBad("snowflake,worker=6", "only 'epoch=' and 'tick='");
        assertBad("time=42,worker=10,sequence=13", "add up to 65 bits; at most 64 fit");
        assertBad("worker=10,time=41,sequence=12", "'time' must be the first");
        assertBad("time=41,worker=10", "needs a 'sequence' field");
        assertBad("time=41,worker=x,sequence=12", "not a whole number: 'x'");
        assertBad("time=41,worker=-1,sequence=12", "must be 0..63, got -1");
        assertBad("time=41,worker=5,worker=5,sequence=12", "'worker' given twice");
        assertBad("time=41,color=5,sequence=12", "unknown key 'color'");
        assertBad("time=41,sequence=12,tick=5", "needs a unit");
        assertBad("time=41,sequence=12,tick=0ms", "between 1ms and one day");
        assertBad("time=41,sequence=12,epoch=yesterday", "epoch 'yesterday'");
        assertBad("time=41,sequence=12,epoch=1969-01-01T00:00:00Z", "before 1970");
        assertBad("time=60,sequence=3,tick=1s", "outlasts any representable date");
        assertBad("time=20,worker=32,sequence=11", "at most 31 bits");
    }

    private static void assertBad(String spec, String message) {
        assertThatThrownBy(() -> Layout.parse(spec)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(message);
    }

    @Test
    void compose_rejectsOverflowingFields() {
        assertThatThrownBy(() -> Layout.SNOWFLAKE.compose(0, 32, 0, 0, 0))
                .hasMessageContaining("datacenter 32 does not fit");
        assertThatThrownBy(() -> Layout.SNOWFLAKE.compose(0, 0, 0, 0, 4096))
                .hasMessageContaining("sequence 4096 does not fit");
        assertThatThrownBy(() -> Layout.SNOWFLAKE.compose(1L << 41, 0, 0, 0, 0))
                .hasMessageContaining("time");
        assertThatThrownBy(() -> Layout.SNOWFLAKE.compose(-1, 0, 0, 0, 0))
                .hasMessageContaining("time -1");
    }

    @Test
    void decode_rejectsNegativeAndUnusedBits() {
        assertThatThrownBy(() -> Layout.SNOWFLAKE.decode(-5)).hasMessageContaining("negative");
        assertThatThrownBy(() -> Layout.JS_SAFE.decode(1L << 53)).hasMessageContaining("53 bits");
    }

    /** Property: over random layouts and parts, compose/decode round-trip and stay positive. */
    @Test
    void randomLayouts_decodeComposeRoundTrip_fieldsNeverOverflow() {
        Random rnd = new Random(20261121L);
        for (int n = 0; n < 2_000; n++) {
            Layout l = randomLayout(rnd);
            assertThat(Layout.parse(l.spec())).isEqualTo(l);
            for (int k = 0; k < 50; k++) {
                long tick = nextBounded(rnd, l.maxTick());
                long dc = nextBounded(rnd, l.maxValue(Field.DATACENTER));
                long w = nextBounded(rnd, l.maxValue(Field.WORKER));
                long shard = nextBounded(rnd, l.maxValue(Field.SHARD));
                long seq = nextBounded(rnd, l.maxValue(Field.SEQUENCE));
                long id = l.compose(tick, dc, w, shard, seq);
                assertThat(id).isNotNegative();
                IdParts p = l.decode(id);
                assertThat(p).isEqualTo(new IdParts(id, l.millisOf(tick), (int) dc, (int) w,
                        (int) shard, seq));
                // Each field is independent: changing one changes only that one.
                if (seq < l.maxValue(Field.SEQUENCE)) {
                    IdParts q = l.decode(l.compose(tick, dc, w, shard, seq + 1));
                    assertThat(q.sequence()).isEqualTo(seq + 1);
                    assertThat(q.workerId()).isEqualTo(p.workerId());
                    assertThat(q.timestampMillis()).isEqualTo(p.timestampMillis());
                }
            }
        }
    }

    @Test
    void presets_ofOtherSystems_decodeTheirPublishedIds() {
        // Discord's documented example: 2016-04-30T11:18:25.796Z, worker 1, process 0, inc. 7.
        IdParts discord = Layout.DISCORD.decode(175_928_847_299_117_063L);
        assertThat(discord.timestamp()).isEqualTo(Instant.parse("2016-04-30T11:18:25.796Z"));
        assertThat(discord.datacenterId()).isEqualTo(1);
        assertThat(discord.workerId()).isZero();
        assertThat(discord.sequence()).isEqualTo(7);
        // Leaf: (time - twepoch) << 22 | worker << 12 | sequence, as SnowflakeIDGenImpl builds it.
        long ms = Instant.parse("2026-11-24T12:00:00Z").toEpochMilli();
        long leaf = ((ms - 1_288_834_974_657L) << 22) | (513L << 12) | 77;
        IdParts p = Layout.LEAF.decode(leaf);
        assertThat(p.timestampMillis()).isEqualTo(ms);
        assertThat(p.workerId()).isEqualTo(513);
        assertThat(p.sequence()).isEqualTo(77);
        assertThat(Layout.LEAF.exhaustion()).isEqualTo(Instant.parse("2080-07-10T17:30:30.209Z"));
        assertThat(Layout.TWITTER.epochMillis()).isEqualTo(1_288_834_974_657L);
        assertThat(Layout.TWITTER.shift(Field.DATACENTER)).isEqualTo(17);
        assertThat(Instant.ofEpochMilli(Layout.SONYFLAKE_2014.epochMillis()))
                .isEqualTo(Instant.parse("2014-09-01T00:00:00Z"));
        assertThat(Layout.UID_GENERATOR_2016.epochMillis()).isEqualTo(1_463_673_600_000L);
        assertThat(Layout.UID_GENERATOR_2016.exhaustion())
                .isBefore(Instant.parse("2026-01-01T00:00:00Z"));
    }

    @Test
    void presets_existingNames_keepTheirSpec() {
        // A preset's spec is a forever contract: deployments store it in their registry.
        assertThat(Layout.SONYFLAKE.spec())
                .isEqualTo("time=39,sequence=8,worker=16,tick=10ms,epoch=2026-01-01T00:00:00Z");
        assertThat(Layout.UID_GENERATOR.spec())
                .isEqualTo("time=28,worker=22,sequence=13,tick=1s,epoch=2026-01-01T00:00:00Z");
        assertThat(Layout.SNOWFLAKE.spec()).isEqualTo(
                "time=41,datacenter=5,worker=5,sequence=12,tick=1ms,epoch=2026-01-01T00:00:00Z");
        assertThat(Layout.parse("time=41,worker=10,sequence=12,epoch=1288834974657"))
                .isSameAs(Layout.LEAF);
    }

    @Test
    void decode_unsignedLayout_readsAll64Bits() {
        Layout discord = Layout.DISCORD;
        assertThat(discord.unsigned()).isTrue();
        assertThat(Layout.SNOWFLAKE.unsigned()).isFalse();
        IdParts max = discord.decode(-1L); // 18446744073709551615
        assertThat(max.timestampMillis()).isEqualTo(1_420_070_400_000L + (1L << 42) - 1);
        assertThat(max.datacenterId()).isEqualTo(31);
        assertThat(max.workerId()).isEqualTo(31);
        assertThat(max.sequence()).isEqualTo(4095);
        assertThat(discord.decode(Long.MIN_VALUE).timestampMillis())
                .isEqualTo(1_420_070_400_000L + (1L << 41));
        assertThatThrownBy(() -> Layout.LEAF.decode(Long.MIN_VALUE))
                .hasMessageContaining("negative; IDs of layout leaf are positive");
    }

    @Test
    void build_unsignedLayout_isRefusedNamingTheRule(@TempDir Path dir) {
        assertThatThrownBy(() -> Snowflake.newBuilder().layout(Layout.DISCORD)
                .registry(WorkerRegistries.local(dir)).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("layout discord uses all 64 bits")
                .hasMessageContaining("mints at most 63 bits");
    }

    private static long nextBounded(Random rnd, long max) {
        return max == 0 ? 0 : Math.floorMod(rnd.nextLong(), max + 1);
    }

    /**
     * A time window's ID range misses no ID of a moment in the window, and takes in no ID of a
     * moment more than a tick outside it: every preset that mints, and random layouts with ticks
     * from 1 ms to 1 s and epochs from 2000 to 2030.
     */
    @Test
    void range_missesNoIdOfTheWindow_andTakesInNoneMoreThanATickOutside() {
        Random rnd = new Random(7);
        List<Layout> layouts = new ArrayList<>();
        for (Layout p : Layout.presets()) {
            if (!p.unsigned() && p.exhaustionMillis() > T2026) {
                layouts.add(p);
            }
        }
        String[] ticks = {"1ms", "7ms", "10ms", "1s"};
        for (int i = 0; i < 40; i++) {
            Layout fields = randomLayout(rnd);
            String spec = fields.spec().replaceAll(",tick=[^,]*", "")
                    .replaceAll(",epoch=[^,]*", "");
            long epoch = Instant.parse("2000-01-01T00:00:00Z").toEpochMilli()
                    + (long) (rnd.nextDouble() * 30 * 365.25 * 86_400_000L);
            Layout l = Layout.parse(spec + ",tick=" + ticks[rnd.nextInt(ticks.length)] + ",epoch="
                    + Instant.ofEpochMilli(epoch));
            if (l.exhaustionMillis() > T2026 + 86_400_000L * 400) {
                layouts.add(l);
            }
        }
        assertThat(layouts).hasSizeGreaterThan(20);
        for (Layout l : layouts) {
            for (int w = 0; w < 50; w++) {
                long start = Math.max(l.epochMillis(), T2026 - rnd.nextInt(86_400_000));
                Instant from = Instant.ofEpochMilli(start).plusNanos(rnd.nextInt(1_000_000));
                Instant to = from.plusNanos(1 + (long) (rnd.nextDouble() * 3_600_000_000_000L));
                IdRange r = l.range(from, to);
                long spanNanos = to.toEpochMilli() - from.toEpochMilli() + 4 * l.tickMillis();
                for (int k = 0; k < 200; k++) {
                    // A moment from two ticks before the window to two ticks after it.
                    Instant m = from.minusMillis(2 * l.tickMillis())
                            .plusMillis((long) (rnd.nextDouble() * spanNanos));
                    long tick = l.tickOf(m.toEpochMilli());
                    if (tick < 0) {
                        continue; // before the epoch: no ID has that time
                    }
                    long id = l.compose(tick, rnd.nextLong(l.maxValue(Field.DATACENTER) + 1),
                            rnd.nextLong(l.maxValue(Field.WORKER) + 1),
                            rnd.nextLong(l.maxValue(Field.SHARD) + 1),
                            rnd.nextLong(l.maxValue(Field.SEQUENCE) + 1));
                    boolean inWindow = !m.isBefore(from) && m.isBefore(to);
                    if (inWindow) {
                        assertThat(r.contains(id)).as("%s: %s in [%s, %s)", l, m, from, to)
                                .isTrue();
                    }
                    if (r.contains(id)) {
                        assertThat(m).as("%s: %s matched [%s, %s)", l, m, from, to)
                                .isAfter(from.minusMillis(l.tickMillis()))
                                .isBefore(to.plusMillis(l.tickMillis()));
                    }
                }
            }
        }
    }

    @Test
    void range_refusesWhatNoIdCanHave_namingIt() {
        Layout l = Layout.SNOWFLAKE;
        Instant epoch = Instant.ofEpochMilli(l.epochMillis());
        assertThat(l.range(epoch, epoch.plusMillis(1)))
                .isEqualTo(new IdRange(0, 1L << l.shift(Field.TIME)));
        assertThatThrownBy(() -> l.range(epoch.minusMillis(1), epoch.plusSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(epoch.minusMillis(1) + " is before layout snowflake's epoch " + epoch
                        + ": no ID has that time");
        Instant t = Instant.parse("2026-11-29T10:00:00Z");
        assertThatThrownBy(() -> l.range(t, t)).hasMessage("the window's start " + t
                + " is not before its end " + t);
        assertThatThrownBy(() -> l.range(t, l.exhaustion().plusSeconds(1)))
                .hasMessageStartingWith(l.exhaustion().plusSeconds(1) + " reaches the last tick "
                        + "of layout snowflake, which runs out at " + l.exhaustion());
        assertThatThrownBy(() -> Layout.DISCORD.range(t, t.plusSeconds(1)))
                .hasMessageContaining("uses all 64 bits");
    }

    private static final long T2026 = Instant.parse("2026-11-29T00:00:00Z").toEpochMilli();

    static Layout randomLayout(Random rnd) {
        int time = 20 + rnd.nextInt(24);
        List<String> parts = new ArrayList<>();
        parts.add("time=" + time);
        int left = 63 - time;
        int seq = 1 + rnd.nextInt(Math.min(left, 20));
        left -= seq;
        List<String> middle = new ArrayList<>();
        for (String f : List.of("datacenter", "worker", "shard")) {
            int w = left == 0 ? 0 : rnd.nextInt(Math.min(left, 16) + 1);
            left -= w;
            middle.add(f + "=" + w);
        }
        if (rnd.nextBoolean()) {
            parts.addAll(middle);
            parts.add("sequence=" + seq);
        } else {
            parts.add("sequence=" + seq);
            parts.addAll(middle);
        }
        parts.add("tick=" + (rnd.nextBoolean() ? "1ms" : "10ms"));
        return Layout.parse(String.join(",", parts));
    }
}

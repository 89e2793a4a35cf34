package io.idmint.server.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idmint.IdGenerator;
import io.idmint.Layout;
import io.idmint.Snowflake;
import io.idmint.WorkerRegistries;
import io.idmint.server.cli.MigrationPlan.Plan;
import io.idmint.server.cli.MigrationPlan.Sample;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MigrationPlanTest {

    private static final long NOW = Instant.parse("2026-11-24T12:00:00Z").toEpochMilli();
    private static final long HORIZON = Instant.parse("2046-11-24T12:00:00Z").toEpochMilli();

    private static List<Sample> ids(long... ids) {
        List<Sample> out = new ArrayList<>();
        for (int i = 0; i < ids.length; i++) {
            out.add(new Sample(ids[i], i + 1));
        }
        return out;
    }

    /** An ID of {@code layout} minted at {@code millis}, node fields and sequence at most. */
    private static long at(Layout layout, long millis) {
        return layout.compose(layout.tickOf(millis), layout.maxDatacenterId(),
                layout.maxWorkerId(), layout.maxShardId(), layout.idsPerTick() - 1);
    }

    @Test
    void plan_leafSample_keepsLeafsLayoutAboveTheHighestTick() {
        long high = at(Layout.LEAF, NOW - 5);
        Plan p = MigrationPlan.plan(Layout.LEAF, ids(at(Layout.LEAF, NOW - 86_400_000L), high),
                NOW, HORIZON, 1000);

        assertThat(p.keep()).isTrue();
        assertThat(p.target()).isSameAs(Layout.LEAF);
        assertThat(p.highest().line()).isEqualTo(2);
        assertThat(p.notBeforeMillis()).isEqualTo(NOW - 4);
        // The first ID of idmint's first tick is above the highest; one tick earlier is not.
        assertThat(Layout.LEAF.compose(Layout.LEAF.tickOf(p.notBeforeMillis()), 0, 0, 0, 0))
                .isGreaterThan(high);
        assertThat(Layout.LEAF.compose(Layout.LEAF.tickOf(p.notBeforeMillis() - 1), 0, 0, 0, 0))
                .isLessThan(high);
    }

    @Test
    void plan_discord_picksA63BitLayoutWhoseFirstIdsAreAbove(@TempDir Path dir) {
        long now = System.currentTimeMillis();
        long high = at(Layout.DISCORD, now - 10);
        Plan p = MigrationPlan.plan(Layout.DISCORD, ids(high), now, now + 365L * 86_400_000L,
                1000);

        assertThat(p.keep()).isFalse();
        assertThat(p.target().totalBits()).isEqualTo(63);
        assertThat(p.notBeforeMillis()).isLessThanOrEqualTo(now);
        // A real generator on the planned layout: its first IDs are above the highest.
        try (IdGenerator gen = Snowflake.newBuilder().layout(p.target())
                .registry(WorkerRegistries.local(dir)).build()) {
            for (int i = 0; i < 10_000; i++) {
                assertThat(gen.nextId()).isGreaterThan(high);
            }
        }
    }

    @Test
    void plan_uidGenerator2016_refusesAsItsTimeFieldRanOut() {
        long high = at(Layout.UID_GENERATOR_2016,
                Layout.UID_GENERATOR_2016.exhaustionMillis() - 1000);

        assertThatThrownBy(() -> MigrationPlan.plan(Layout.UID_GENERATOR_2016, ids(high), NOW,
                HORIZON, 1000))
                .hasMessageContaining("layout uid-generator-2016 runs out at 2024-")
                .hasMessageContaining("a new epoch cannot help")
                .hasMessageContaining("before the horizon 2046-11-24T12:00:00.000Z");
    }

    @Test
    void plan_horizonBeyondTheLayout_refusesNamingBothDates() {
        long horizon = Instant.parse("2090-01-01T00:00:00Z").toEpochMilli();

        assertThatThrownBy(() -> MigrationPlan.plan(Layout.LEAF, ids(at(Layout.LEAF, NOW)), NOW,
                horizon, 1000))
                .hasMessageContaining("runs out at 2080-07-10T17:30:30.209Z, before the horizon "
                        + "2090-01-01T00:00:00.000Z");
    }

    @Test
    void plan_idFromTheFuture_isRefusedNamingItsLine() {
        long future = at(Layout.LEAF, NOW + 2000);

        assertThatThrownBy(() -> MigrationPlan.plan(Layout.LEAF,
                ids(at(Layout.LEAF, NOW - 1), future), NOW, HORIZON, 1000))
                .hasMessageContaining("line 2: ID " + future + " decodes to "
                        + "2026-11-24T12:00:02.000Z, 2s after this machine's clock")
                .hasMessageContaining("an ID from the future");
        // Within the allowed skew it is a clock difference: idmint starts after it.
        Plan p = MigrationPlan.plan(Layout.LEAF, ids(future), NOW, HORIZON, 5000);
        assertThat(p.notBeforeMillis()).isEqualTo(NOW + 2001);
    }

    @Test
    void plan_sampleMixingLayouts_isRefusedNamingTheIdThatDoesNotFit() {
        long sonyflakeTooWide = -1L; // 2^64-1: no 63-bit source made it

        assertThatThrownBy(() -> MigrationPlan.plan(Layout.LEAF,
                ids(at(Layout.LEAF, NOW), sonyflakeTooWide), NOW, HORIZON, 1000))
                .hasMessageContaining("line 2: ID 18446744073709551615 does not fit the 63 bits "
                        + "of layout leaf")
                .hasMessageContaining("mixes layouts");
        // js-safe's 53 bits: a Leaf ID is far above them.
        assertThatThrownBy(() -> MigrationPlan.plan(Layout.JS_SAFE,
                ids(1, at(Layout.LEAF, NOW)), NOW, HORIZON, 1000))
                .hasMessageContaining("line 2:").hasMessageContaining("53 bits");
    }

    @Test
    void plan_discordIdAbove2To63_isRefused() {
        long high = Layout.DISCORD.compose(1L << 41, 0, 0, 0, 0); // 2084, sign bit set

        assertThatThrownBy(() -> MigrationPlan.plan(Layout.DISCORD, ids(high),
                Layout.DISCORD.millisOf(1L << 41) + 10, HORIZON + (60L << 40), 1000))
                .hasMessageContaining("uses all 64 bits")
                .hasMessageContaining("at or above 2^63");
    }

    @Test
    void read_malformedLine_isRefusedNamingTheLine() {
        assertThatThrownBy(() -> MigrationPlan.read(List.of("123", "", "12x"), "ids.txt"))
                .hasMessage("line 3: '12x' is not a decimal ID (1 to 20 digits, at most "
                        + "18446744073709551615)");
        assertThatThrownBy(() -> MigrationPlan.read(List.of("18446744073709551616"), "ids.txt"))
                .hasMessageContaining("line 1: '18446744073709551616' is above");
        assertThatThrownBy(() -> MigrationPlan.read(List.of(" ", ""), "ids.txt"))
                .hasMessage("--sample-ids ids.txt holds no IDs");
        assertThat(MigrationPlan.read(List.of("18446744073709551615"), "f").get(0).id())
                .isEqualTo(-1L);
    }

    @Test
    void source_namesTheRealEpochLayouts() {
        assertThat(MigrationPlan.source("sonyflake")).isSameAs(Layout.SONYFLAKE_2014);
        assertThat(MigrationPlan.source("uid-generator")).isSameAs(Layout.UID_GENERATOR_2016);
        assertThat(MigrationPlan.source("Leaf")).isSameAs(Layout.LEAF);
        // The names a plan prints for them are accepted too.
        assertThat(MigrationPlan.source("uid-generator-2016")).isSameAs(Layout.UID_GENERATOR_2016);
        assertThat(MigrationPlan.source("sonyflake-2014")).isSameAs(Layout.SONYFLAKE_2014);
        assertThat(MigrationPlan.source("time=31,worker=20,sequence=12,tick=1s").name())
                .isEqualTo("custom");
        assertThatThrownBy(() -> MigrationPlan.source("snowflak"))
                .hasMessageContaining("unknown --from 'snowflak'; sources are leaf, "
                        + "uid-generator, twitter, sonyflake, discord, uid-generator-2016, "
                        + "sonyflake-2014");
    }

    /**
     * Property: whatever the source and sample, a plan's first tick puts every idmint ID above
     * the highest existing one, and the tick before does not (the plan is tight).
     */
    @Test
    void plan_randomSamples_firstTickIsAboveTheHighest() {
        Random rnd = new Random(13);
        List<Layout> sources = List.copyOf(MigrationPlan.SOURCES.values());
        int plans = 0;
        for (int i = 0; i < 2000; i++) {
            Layout source = sources.get(rnd.nextInt(sources.size()));
            long from = Math.max(source.epochMillis(), NOW - 10L * 365 * 86_400_000L);
            long to = Math.min(NOW, source.exhaustionMillis() - 1);
            List<Sample> sample = new ArrayList<>();
            for (int k = 0; k < 1 + rnd.nextInt(5); k++) {
                long ms = from + (long) (rnd.nextDouble() * (to - from));
                sample.add(new Sample(source.compose(source.tickOf(ms),
                        rnd.nextInt(source.maxDatacenterId() + 1),
                        rnd.nextInt(source.maxWorkerId() + 1), 0,
                        rnd.nextLong() & source.maxValue(Layout.Field.SEQUENCE)), k + 1));
            }
            long high = sample.stream().mapToLong(Sample::id)
                    .reduce(0, (a, b) -> Long.compareUnsigned(a, b) >= 0 ? a : b);
            Plan p;
            try {
                p = MigrationPlan.plan(source, sample, NOW, HORIZON, 0);
            } catch (IllegalArgumentException refused) {
                assertThat(source).isSameAs(Layout.UID_GENERATOR_2016);
                continue;
            }
            plans++;
            Layout t = p.target();
            long first = t.compose(t.tickOf(p.notBeforeMillis()), 0, 0, 0, 0);
            assertThat(Long.compareUnsigned(first, high)).as("%s %s", source, p).isPositive();
            long before = t.compose(t.tickOf(p.notBeforeMillis()) - 1, 0, 0, 0, 0);
            assertThat(Long.compareUnsigned(before, high)).as("%s %s", source, p).isNotPositive();
            assertThat(p.notBeforeMillis()).isLessThanOrEqualTo(NOW + t.tickMillis());
            assertThat(t.exhaustionMillis()).isGreaterThanOrEqualTo(HORIZON);
        }
        assertThat(plans).isGreaterThan(1000);
    }
}

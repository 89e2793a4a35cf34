package io.idmint.shardingsphere;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.common.collect.Range;
import io.idmint.IdRange;
import io.idmint.Layout;
import java.time.Instant;
import java.util.List;
import java.util.Properties;
import org.apache.shardingsphere.infra.datanode.DataNodeInfo;
import org.apache.shardingsphere.sharding.api.sharding.standard.PreciseShardingValue;
import org.apache.shardingsphere.sharding.api.sharding.standard.RangeShardingValue;
import org.junit.jupiter.api.Test;

/** The sharding algorithms' routing and their refusals, without a database. */
class ShardingAlgorithmsTest {

    private static final List<String> SHARDS = List.of("ds_0", "ds_1", "ds_2", "ds_3");
    private static final List<String> MONTHS = List.of("t_202609", "t_202610", "t_202611",
            "t_202612", "t_202701");
    private static final DataNodeInfo NODES = new DataNodeInfo("t_", 6, '0');

    @Test
    void mod_routesByRemainder_andNarrowRangesOnly() {
        IdmintModShardingAlgorithm mod = new IdmintModShardingAlgorithm();
        mod.init(props("sharding-count", "4"));
        assertThat(mod.doSharding(SHARDS, precise(10L))).isEqualTo("ds_2");
        assertThat(mod.doSharding(SHARDS, precise("7"))).isEqualTo("ds_3");
        assertThat(mod.doSharding(SHARDS, range(Range.closed(5L, 6L))))
                .containsExactly("ds_1", "ds_2");
        assertThat(mod.doSharding(SHARDS, range(Range.closed(5L, 100L)))).isEqualTo(SHARDS);
        assertThat(mod.doSharding(SHARDS, range(Range.atLeast(5L)))).isEqualTo(SHARDS);
        assertThat(mod.doSharding(List.of("t_1", "t_11", "t_0", "t_2", "t_3"), precise(1L)))
                .isEqualTo("t_1");
        assertThatThrownBy(() -> mod.doSharding(List.of("a", "b"), precise(1L)))
                .hasMessageContaining("no target ends in 1");
    }

    @Test
    void interval_routesByTheTimeInsideTheId_inAnyLayout() {
        for (String spec : List.of("snowflake", "sonyflake", "instagram",
                "time=40,worker=10,sequence=13,tick=10ms,epoch=2020-01-01T00:00:00Z")) {
            Layout layout = Layout.parse(spec);
            IdmintIntervalShardingAlgorithm interval = new IdmintIntervalShardingAlgorithm();
            interval.init(props("sharding-suffix-pattern", "yyyyMM", "layout", spec));
            IdRange november = layout.range(Instant.parse("2026-11-01T00:00:00Z"),
                    Instant.parse("2026-12-01T00:00:00Z"));

            assertThat(interval.doSharding(MONTHS, precise(november.from()))).as(spec)
                    .isEqualTo("t_202611");
            assertThat(interval.doSharding(MONTHS, precise(november.to() - 1))).as(spec)
                    .isEqualTo("t_202611");
            assertThat(interval.doSharding(MONTHS, precise(november.to()))).as(spec)
                    .isEqualTo("t_202612");
            assertThat(interval.doSharding(MONTHS, range(Range.closedOpen(november.from(),
                    november.to())))).as(spec).containsExactly("t_202611");
            assertThat(interval.doSharding(MONTHS, range(Range.closed(november.from(),
                    november.to())))).as(spec).containsExactly("t_202611", "t_202612");
            assertThat(interval.doSharding(MONTHS, range(Range.closed(november.from(),
                    november.to() - 1)))).as(spec).containsExactly("t_202611");
            IdRange autumn = layout.range(Instant.parse("2026-09-15T00:00:00Z"),
                    Instant.parse("2027-01-15T00:00:00Z"));
            assertThat(interval.doSharding(MONTHS, range(Range.closed(autumn.from(),
                    autumn.to())))).as(spec).isEqualTo(MONTHS);
            assertThat(interval.doSharding(MONTHS, range(Range.atMost(november.to()))))
                    .isEqualTo(MONTHS);
        }
    }

    @Test
    void badProperties_areRefused_namingTypeAndKey() {
        assertThatThrownBy(() -> new IdmintModShardingAlgorithm().init(props("count", "4")))
                .hasMessage("IDMINT_MOD: unknown property 'count'; the properties are "
                        + "[sharding-count]");
        assertThatThrownBy(() -> new IdmintModShardingAlgorithm().init(props("sharding-count",
                "four"))).hasMessageContaining("'sharding-count' must be an integer");
        assertThatThrownBy(() -> new IdmintIntervalShardingAlgorithm().init(props()))
                .hasMessageContaining("'sharding-suffix-pattern' is required");
        assertThatThrownBy(() -> new IdmintIntervalShardingAlgorithm().init(props(
                "sharding-suffix-pattern", "yyyyMM", "datetime-interval-unit", "HOURS")))
                .hasMessageContaining("must be DAYS, WEEKS, MONTHS or YEARS, got 'HOURS'");
        assertThatThrownBy(() -> new IdmintIntervalShardingAlgorithm().init(props(
                "sharding-suffix-pattern", "yyyyMM", "zone", "Mars/Olympus")))
                .hasMessageContaining("'zone' is not a time zone");
        assertThatThrownBy(() -> new IdmintKeyGenerateAlgorithm().init(props("registry",
                "static:", "sequence.start", "sometimes")))
                .hasMessageContaining("'sequence.start' must be random or zero");
        assertThatThrownBy(() -> new IdmintSegmentKeyGenerateAlgorithm().init(props("store",
                "jdbc:h2:mem:x", "tag", "a/b")))
                .hasMessageContaining("'tag' is no segment tag");
    }

    private static Properties props(String... pairs) {
        Properties p = new Properties();
        for (int i = 0; i < pairs.length; i += 2) {
            p.setProperty(pairs[i], pairs[i + 1]);
        }
        return p;
    }

    private static PreciseShardingValue<Comparable<?>> precise(Comparable<?> value) {
        return new PreciseShardingValue<>("t", "id", NODES, value);
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static RangeShardingValue<Comparable<?>> range(Range<? extends Comparable<?>> r) {
        return new RangeShardingValue<>("t", "id", NODES, (Range) r);
    }
}

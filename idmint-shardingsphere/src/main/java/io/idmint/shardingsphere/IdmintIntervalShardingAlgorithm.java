package io.idmint.shardingsphere;

import io.idmint.Layout;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.Set;
import org.apache.shardingsphere.sharding.api.sharding.standard.PreciseShardingValue;
import org.apache.shardingsphere.sharding.api.sharding.standard.RangeShardingValue;
import org.apache.shardingsphere.sharding.api.sharding.standard.StandardShardingAlgorithm;

/**
 * Sharding algorithm type {@code IDMINT_INTERVAL}: routes a row by the time inside its ID (any
 * layout: a preset or a custom spec), so a table can be split by month, say, with the ID alone
 * as the sharding column. The target is the one whose name ends in the ID's time formatted with
 * {@code sharding-suffix-pattern} in {@code zone}. A range of IDs ({@code BETWEEN}, {@code >=},
 * {@code <}: e.g. {@code idmint range --from … --to …}'s bounds) reaches only the periods its
 * bounds' times span, not every target; an open range reaches all.
 *
 * <pre>{@code
 * shardingAlgorithms:
 *   by_month:
 *     type: IDMINT_INTERVAL
 *     props:
 *       sharding-suffix-pattern: yyyyMM     # required: t_event_202611
 *       datetime-interval-unit: MONTHS      # DAYS, WEEKS, MONTHS or YEARS; default MONTHS
 *       layout: snowflake                   # default snowflake
 *       zone: UTC                           # default UTC
 * }</pre>
 */
public final class IdmintIntervalShardingAlgorithm
        implements StandardShardingAlgorithm<Comparable<?>> {

    /** The type name in ShardingSphere's configuration. */
    public static final String TYPE = "IDMINT_INTERVAL";

    private static final Set<String> KEYS = Set.of("sharding-suffix-pattern",
            "datetime-interval-unit", "layout", "zone");

    private Layout layout;
    private DateTimeFormatter suffix;
    private ChronoUnit unit;
    private ZoneId zone;

    /** ShardingSphere makes it through its SPI and calls {@link #init}. */
    public IdmintIntervalShardingAlgorithm() {
    }

    @Override
    public void init(Properties properties) {
        Props props = new Props(TYPE, properties, KEYS);
        String pattern = props.required("sharding-suffix-pattern",
                "how a target's name ends, as a date pattern such as yyyyMM");
        try {
            this.suffix = DateTimeFormatter.ofPattern(pattern, Locale.ROOT);
        } catch (IllegalArgumentException e) {
            throw props.bad("sharding-suffix-pattern", "is not a date pattern: "
                    + e.getMessage());
        }
        String unitName = props.get("datetime-interval-unit", "MONTHS");
        this.unit = switch (unitName.toUpperCase(Locale.ROOT)) {
            case "DAYS" -> ChronoUnit.DAYS;
            case "WEEKS" -> ChronoUnit.WEEKS;
            case "MONTHS" -> ChronoUnit.MONTHS;
            case "YEARS" -> ChronoUnit.YEARS;
            default -> throw props.bad("datetime-interval-unit", "must be DAYS, WEEKS, MONTHS "
                    + "or YEARS, got '" + unitName + "'");
        };
        this.layout = props.layout();
        try {
            this.zone = ZoneId.of(props.get("zone", "UTC"));
        } catch (DateTimeException e) {
            throw props.bad("zone", "is not a time zone: " + e.getMessage());
        }
    }

    @Override
    public String doSharding(Collection<String> targets, PreciseShardingValue<Comparable<?>> v) {
        ZonedDateTime time = time(Props.id(TYPE, v.getValue()));
        String end = suffix.format(time);
        for (String target : targets) {
            if (target.endsWith(end)) {
                return target;
            }
        }
        throw new IllegalStateException(TYPE + ": no target ends in " + end + " (the time "
                + time + " inside ID " + v.getValue() + ") among " + targets);
    }

    @Override
    public Collection<String> doSharding(Collection<String> targets,
            RangeShardingValue<Comparable<?>> v) {
        ZonedDateTime from;
        ZonedDateTime to;
        try {
            long[] bounds = Props.closedBounds(TYPE, v.getValueRange());
            if (bounds == null) {
                return targets;
            }
            from = time(Math.max(0, bounds[0]));
            to = time(bounds[1]);
        } catch (IllegalArgumentException e) {
            return targets;   // a bound no ID reaches: every target may hold a row
        }
        Set<String> ends = new LinkedHashSet<>();
        for (ZonedDateTime t = from; !t.isAfter(to); t = t.plus(1, unit)) {
            ends.add(suffix.format(t));
        }
        ends.add(suffix.format(to));
        List<String> hit = new ArrayList<>();
        for (String target : targets) {
            for (String end : ends) {
                if (target.endsWith(end)) {
                    hit.add(target);
                    break;
                }
            }
        }
        return hit;
    }

    private ZonedDateTime time(long id) {
        return Instant.ofEpochMilli(layout.decode(id).timestampMillis()).atZone(zone);
    }

    @Override
    public String getType() {
        return TYPE;
    }
}

package io.idmint.shardingsphere;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import org.apache.shardingsphere.sharding.api.sharding.standard.PreciseShardingValue;
import org.apache.shardingsphere.sharding.api.sharding.standard.RangeShardingValue;
import org.apache.shardingsphere.sharding.api.sharding.standard.StandardShardingAlgorithm;

/**
 * Sharding algorithm type {@code IDMINT_MOD}: the target whose name ends in {@code id %
 * sharding-count} (its trailing digits, so {@code t_1} never matches {@code t_11}). A range of
 * fewer IDs than targets reaches only their targets, a wider one every target. With the {@code
 * IDMINT} key generator's random sequence start the IDs spread evenly at any insert rate.
 *
 * <pre>{@code
 * shardingAlgorithms:
 *   by_id:
 *     type: IDMINT_MOD
 *     props:
 *       sharding-count: 4
 * }</pre>
 */
public final class IdmintModShardingAlgorithm implements StandardShardingAlgorithm<Comparable<?>> {

    /** The type name in ShardingSphere's configuration. */
    public static final String TYPE = "IDMINT_MOD";

    private int count;

    /** ShardingSphere makes it through its SPI and calls {@link #init}. */
    public IdmintModShardingAlgorithm() {
    }

    @Override
    public void init(Properties properties) {
        Props props = new Props(TYPE, properties, Set.of("sharding-count"));
        props.required("sharding-count", "the number of targets, e.g. 4");
        this.count = props.integer("sharding-count", 0, 1, 1 << 20);
    }

    @Override
    public String doSharding(Collection<String> targets, PreciseShardingValue<Comparable<?>> v) {
        return target(targets, Math.floorMod(Props.id(TYPE, v.getValue()), count));
    }

    @Override
    public Collection<String> doSharding(Collection<String> targets,
            RangeShardingValue<Comparable<?>> v) {
        long[] bounds = Props.closedBounds(TYPE, v.getValueRange());
        if (bounds == null || bounds[1] < bounds[0] || bounds[1] - bounds[0] + 1 >= count) {
            return targets;
        }
        long lo = bounds[0];
        long hi = bounds[1];
        Set<String> hit = new LinkedHashSet<>();
        for (long id = lo; id <= hi; id++) {
            hit.add(target(targets, Math.floorMod(id, count)));
        }
        return new ArrayList<>(hit);
    }

    private static String target(Collection<String> targets, long residue) {
        List<String> matching = new ArrayList<>(1);
        for (String target : targets) {
            int end = target.length();
            int start = end;
            while (start > 0 && Character.isDigit(target.charAt(start - 1))) {
                start--;
            }
            if (start < end && Long.parseLong(target.substring(start, end)) == residue) {
                matching.add(target);
            }
        }
        if (matching.size() != 1) {
            throw new IllegalStateException(TYPE + ": " + (matching.isEmpty() ? "no target"
                    : "more than one target " + matching) + " ends in " + residue + " among "
                    + targets + "; name the targets …_0 to …_" + "(sharding-count - 1)");
        }
        return matching.get(0);
    }

    @Override
    public String getType() {
        return TYPE;
    }
}

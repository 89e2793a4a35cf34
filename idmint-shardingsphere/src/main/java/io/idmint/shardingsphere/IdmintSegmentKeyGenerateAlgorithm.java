package io.idmint.shardingsphere;

import io.idmint.segment.RangeStores;
import io.idmint.segment.SegmentGenerator;
import io.idmint.segment.Segments;
import io.idmint.spi.RangeStore;
import io.idmint.spi.support.Names;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import org.apache.shardingsphere.infra.algorithm.core.context.AlgorithmSQLContext;
import org.apache.shardingsphere.infra.algorithm.keygen.core.KeyGenerateAlgorithm;

/**
 * Key generator type {@code IDMINT_SEGMENT}: dense, increasing values of a segment tag from
 * idmint's range store (SQL, Redis, etcd, ZooKeeper, H2), a range at a time, so {@code id % N}
 * is exactly even. Dense means countable: keep such keys out of what customers see.
 *
 * <pre>{@code
 * keyGenerators:
 *   tickets:
 *     type: IDMINT_SEGMENT
 *     props:
 *       store: jdbc:postgresql://db:5432/ids?user=idmint   # required
 *       tag: ticket                                       # default: the logic table's name
 * }</pre>
 *
 * <p>Properties: {@code store} (required), {@code data-dir} ({@code data}), {@code tag} (default:
 * the table's name), {@code auto-create} ({@code true}: a tag the store does not know starts at
 * 1). Another key is refused, naming it.
 */
public final class IdmintSegmentKeyGenerateAlgorithm implements KeyGenerateAlgorithm {

    /** The type name in ShardingSphere's configuration. */
    public static final String TYPE = "IDMINT_SEGMENT";

    private static final Set<String> KEYS = Set.of("store", "data-dir", "tag", "auto-create");

    private SegmentGenerator segments;
    private String tag;

    /** ShardingSphere makes it through its SPI and calls {@link #init}. */
    public IdmintSegmentKeyGenerateAlgorithm() {
    }

    @Override
    public void init(Properties properties) {
        Props props = new Props(TYPE, properties, KEYS);
        String uri = props.required("store", "idmint's range store: jdbc:…, redis://…, "
                + "etcd://… or zk://…");
        Path dataDir = Path.of(props.get("data-dir", "data"));
        this.tag = props.get("tag", null);
        if (tag != null && !Names.isValidTag(tag)) {
            throw props.bad("tag", "is no segment tag: " + Names.TAG_RULE);
        }
        boolean autoCreate = props.bool("auto-create", true);
        this.segments = Shared.get(TYPE + uri + "|" + dataDir + "|" + autoCreate, () -> {
            RangeStore store = RangeStores.open(uri, dataDir);
            try {
                SegmentGenerator generator = Segments.newBuilder().store(store)
                        .autoCreate(autoCreate).build();
                return new Shared.Opened<>(generator, List.of(generator, store));
            } catch (RuntimeException e) {
                store.close();
                throw e;
            }
        });
    }

    @Override
    public Collection<Long> generateKeys(AlgorithmSQLContext context, int count) {
        long[] keys = new long[count];
        segments.next(tag != null ? tag : context.getTableName(), keys, 0, count);
        List<Long> result = new ArrayList<>(count);
        for (long key : keys) {
            result.add(key);
        }
        return result;
    }

    @Override
    public String getType() {
        return TYPE;
    }
}

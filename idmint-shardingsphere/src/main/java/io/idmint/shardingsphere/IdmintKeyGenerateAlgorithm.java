package io.idmint.shardingsphere;

import io.idmint.IdGenerator;
import io.idmint.Layout;
import io.idmint.SequenceStart;
import io.idmint.Snowflake;
import io.idmint.WorkerRegistries;
import io.idmint.spi.WorkerRegistry;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import org.apache.shardingsphere.infra.algorithm.core.context.AlgorithmSQLContext;
import org.apache.shardingsphere.infra.algorithm.keygen.core.KeyGenerateAlgorithm;

/**
 * Key generator type {@code IDMINT}: snowflake-family IDs from a generator whose worker is leased
 * from idmint's registry (etcd, ZooKeeper, SQL or {@code static:}), fenced by its high-water mark
 * like every idmint generator; never from ShardingSphere's own worker ID. A multi-row INSERT's
 * keys come from one call. Each tick's sequence starts at random by default ({@code
 * sequence.start=random}, span 16), so {@code id % N} is even for any N dividing the span even
 * when every insert has a tick of its own; ShardingSphere's {@code SNOWFLAKE} starts each
 * millisecond at 0 and fills shard 0 at low rates.
 *
 * <pre>{@code
 * keyGenerators:
 *   idmint:
 *     type: IDMINT
 *     props:
 *       registry: etcd://10.0.0.1:2379/orders   # required
 *       datacenter: 1                           # default 0
 * }</pre>
 *
 * <p>Properties: {@code registry} (required), {@code data-dir} ({@code data}), {@code namespace},
 * {@code layout} (a preset or spec, default {@code snowflake}), {@code datacenter} (0), {@code
 * worker} (a preferred worker ID), {@code sequence.start} ({@code random} or {@code zero}),
 * {@code sequence.random-span} (16). Another key is refused, naming it.
 */
public final class IdmintKeyGenerateAlgorithm implements KeyGenerateAlgorithm {

    /** The type name in ShardingSphere's configuration. */
    public static final String TYPE = "IDMINT";

    private static final Set<String> KEYS = Set.of("registry", "data-dir", "namespace",
            "layout", "datacenter", "worker", "sequence.start", "sequence.random-span");

    private IdGenerator ids;

    /** ShardingSphere makes it through its SPI and calls {@link #init}. */
    public IdmintKeyGenerateAlgorithm() {
    }

    @Override
    public void init(Properties properties) {
        Props props = new Props(TYPE, properties, KEYS);
        String registry = props.required("registry",
                "idmint's worker registry: etcd://…, zk://…, jdbc:… or static:");
        Path dataDir = Path.of(props.get("data-dir", "data"));
        String namespace = props.get("namespace", null);
        Layout layout = props.layout();
        int datacenter = props.integer("datacenter", 0, 0, layout.maxDatacenterId());
        int worker = props.integer("worker", -1, 0, layout.maxWorkerId());
        String start = props.get("sequence.start", "random");
        int span = props.integer("sequence.random-span", SequenceStart.DEFAULT_RANDOM_SPAN, 2,
                (int) Math.min(layout.idsPerTick(), SequenceStart.MAX_SPAN));
        SequenceStart sequenceStart = switch (start) {
            case "random" -> SequenceStart.random(span, new SecureRandom());
            case "zero" -> SequenceStart.zero();
            default -> throw props.bad("sequence.start", "must be random or zero, got '"
                    + start + "'");
        };
        this.ids = Shared.get(TYPE + new TreeMap<>(props.all()), () -> {
            WorkerRegistry workers = WorkerRegistries.open(registry, dataDir);
            try {
                Snowflake b = Snowflake.newBuilder().registry(workers).layout(layout)
                        .datacenterId(datacenter).sequenceStart(sequenceStart);
                if (namespace != null) {
                    b.namespace(namespace);
                }
                if (worker >= 0) {
                    b.preferredWorkerId(worker);
                }
                IdGenerator generator = b.build();
                return new Shared.Opened<>(generator, List.of(generator, workers));
            } catch (RuntimeException e) {
                workers.close();
                throw e;
            }
        });
    }

    @Override
    public Collection<Long> generateKeys(AlgorithmSQLContext context, int count) {
        long[] keys = new long[count];
        ids.nextIds(keys, 0, count);
        List<Long> result = new ArrayList<>(count);
        for (long key : keys) {
            result.add(key);
        }
        return result;
    }

    /** The generator behind it: its worker, layout and status. */
    public IdGenerator generator() {
        return ids;
    }

    @Override
    public String getType() {
        return TYPE;
    }
}

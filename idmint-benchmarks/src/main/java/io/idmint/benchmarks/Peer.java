package io.idmint.benchmarks;

import cn.hutool.core.lang.Snowflake;
import com.github.f4b6a3.tsid.Tsid;
import com.github.f4b6a3.tsid.TsidFactory;
import com.github.f4b6a3.uuid.UuidCreator;
import com.github.yitter.contract.IdGeneratorOptions;
import com.github.yitter.idgen.DefaultIdGenerator;
import io.idmint.IdGenerator;
import io.idmint.WorkerRegistries;
import io.idmint.segment.SegmentGenerator;
import io.idmint.segment.SegmentSequence;
import io.idmint.segment.Segments;
import io.idmint.spi.WorkerRegistry;
import io.idmint.testkit.InMemoryRangeStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.function.LongUnaryOperator;
import java.util.function.Supplier;
import java.util.function.ToLongFunction;
import java.util.function.UnaryOperator;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.stream.Stream;
import me.ahoo.cosid.segment.IdSegmentDistributor;
import me.ahoo.cosid.segment.SegmentChainId;
import me.ahoo.cosid.snowflake.MillisecondSnowflakeId;

/**
 * One ID generator under test, opened by the name {@link PeerBenchmark}'s {@code impl} parameter
 * gives it, each configured as its README shows it (one node or worker, default layout). A peer
 * mints either 64-bit IDs ({@link #longs}) or UUIDs ({@link #uuids}); {@link #millisOf} decodes
 * the Unix time in milliseconds from an ID with the library's own layout and epoch, for the
 * generators whose IDs carry one.
 *
 * <p>Adding a variant is one {@code case} in {@link #open} plus its name in the {@code @Param}
 * list of {@link PeerBenchmark#impl}; {@link PeerCheck} takes its list from there.
 */
final class Peer implements AutoCloseable {

    /** The segment tag both segment generators serve. */
    private static final String TAG = "bench";
    /** Their first range size, the same for both (idmint's default; CosId's is 10). */
    private static final long SEGMENT_STEP = 1_000;
    /**
     * CosId logs every change of its prefetch distance at INFO; kept here (JUL holds loggers
     * weakly) at WARNING so that the benchmark output stays readable.
     */
    private static final Logger COSID_LOG = quiet("me.ahoo.cosid");

    final String name;
    /** Mints a 64-bit ID; null for a UUID peer. */
    final LongSupplier longs;
    /** Mints a UUID; null for a 64-bit peer. */
    final Supplier<UUID> uuids;
    private final LongUnaryOperator longMillis;
    private final ToLongFunction<UUID> uuidMillis;
    private final AutoCloseable resources;

    private Peer(String name, LongSupplier longs, Supplier<UUID> uuids,
            LongUnaryOperator longMillis, ToLongFunction<UUID> uuidMillis,
            AutoCloseable resources) {
        this.name = name;
        this.longs = longs;
        this.uuids = uuids;
        this.longMillis = longMillis;
        this.uuidMillis = uuidMillis;
        this.resources = resources;
    }

    /**
     * Opens the generator called {@code impl}.
     *
     * @throws IllegalArgumentException for an unknown name, listing the known ones
     */
    static Peer open(String impl) throws IOException {
        return switch (impl) {
            case "idmint" -> idmint(impl, b -> b);
            case "idmintStriped" -> idmint(impl, b -> b.workers(2));
            case "idmintFencedUuid" -> idmintFencedUuid(impl);
            case "idmintSegment" -> idmintSegment(impl);
            case "cosidSnowflake" -> cosidSnowflake(impl);
            case "cosidSegmentChain" -> cosidSegmentChain(impl);
            case "tsid" -> tsid(impl);
            case "hutool" -> hutool(impl);
            case "yitter" -> yitter(impl);
            case "uuidV7" -> new Peer(impl, null, UuidCreator::getTimeOrderedEpoch, null,
                    Peer::uuidV7Millis, () -> { });
            case "jdkRandomUuid" -> new Peer(impl, null, UUID::randomUUID, null, null, () -> { });
            case "jdkAtomicLong" -> {
                AtomicLong counter = new AtomicLong();
                yield new Peer(impl, counter::incrementAndGet, null, null, null, () -> { });
            }
            default -> throw new IllegalArgumentException("unknown impl '" + impl
                    + "'; known: " + String.join(", ", PeerBenchmark.impls()));
        };
    }

    /** Whether the IDs carry a timestamp, so that {@link #millisOf} means something. */
    boolean hasTime() {
        return longMillis != null || uuidMillis != null;
    }

    /** The Unix time in ms of a 64-bit ID of this peer. */
    long millisOf(long id) {
        return longMillis.applyAsLong(id);
    }

    /** The Unix time in ms of a UUID of this peer. */
    long millisOf(UUID id) {
        return uuidMillis.applyAsLong(id);
    }

    @Override
    public void close() throws Exception {
        resources.close();
    }

    /** One Snowflake worker leased from the static registry in a temp dir, as a node runs. */
    private static Peer idmint(String name, UnaryOperator<io.idmint.Snowflake> options)
            throws IOException {
        Path dir = Files.createTempDirectory("idmint-peer-");
        WorkerRegistry registry = WorkerRegistries.local(dir);
        IdGenerator generator = options.apply(io.idmint.Snowflake.newBuilder().registry(registry))
                .build();
        return new Peer(name, generator::nextId, null,
                id -> generator.layout().decode(id).timestampMillis(), null, () -> {
                    generator.close();
                    registry.close();
                    deleteTree(dir);
                });
    }

    /** Fenced UUIDv7s over one Snowflake worker, as {@link #idmint} leases it. */
    private static Peer idmintFencedUuid(String name) throws IOException {
        Path dir = Files.createTempDirectory("idmint-peer-");
        WorkerRegistry registry = WorkerRegistries.local(dir);
        IdGenerator generator = io.idmint.Snowflake.newBuilder().registry(registry).build();
        io.idmint.FencedUuidV7 uuids = io.idmint.FencedUuidV7.over(generator);
        return new Peer(name, null, uuids::next, null, Peer::uuidV7Millis, () -> {
            generator.close();
            registry.close();
            deleteTree(dir);
        });
    }

    /** Segments on the testkit's in-memory store: the cost of the buffer, not of a database. */
    private static Peer idmintSegment(String name) throws IOException {
        InMemoryRangeStore store = new InMemoryRangeStore();
        try {
            store.create(TAG, 1, SEGMENT_STEP);
        } catch (io.idmint.spi.RegistryException e) {
            throw new IOException("cannot create tag " + TAG + " in the in-memory store", e);
        }
        SegmentGenerator generator = Segments.newBuilder().store(store).build();
        SegmentSequence orders = generator.sequence(TAG);
        return new Peer(name, orders::next, null, null, null, generator::close);
    }

    /** CosId's millisecond snowflake: 41 bits of time since 2019-12-24, 10 machine, 12 seq. */
    private static Peer cosidSnowflake(String name) {
        MillisecondSnowflakeId snowflake = new MillisecondSnowflakeId(1);
        int shift = snowflake.getMachineBit() + snowflake.getSequenceBit();
        return new Peer(name, snowflake::generate, null,
                id -> (id >>> shift) + snowflake.getEpoch(), null, () -> { });
    }

    /**
     * CosId's segment chain on its in-memory distributor (an {@code AtomicLong}), with its
     * default prefetching (shared daemon threads, so nothing to close).
     */
    private static Peer cosidSegmentChain(String name) {
        SegmentChainId chain = new SegmentChainId(new IdSegmentDistributor.Atomic(SEGMENT_STEP));
        return new Peer(name, chain::generate, null, null, null, () -> { });
    }

    /** tsid-creator with node 1 of 1024: 42 bits of time since 2020-01-01, 12-bit counter. */
    private static Peer tsid(String name) {
        TsidFactory factory = TsidFactory.builder().withNode(1).build();
        return new Peer(name, () -> factory.create().toLong(), null,
                id -> Tsid.from(id).getUnixMilliseconds(), null, () -> { });
    }

    /** Hutool's Twitter-layout snowflake, worker 1 of datacenter 1, epoch 2010-11-04. */
    private static Peer hutool(String name) {
        Snowflake snowflake = new Snowflake(1, 1);
        return new Peer(name, snowflake::nextId, null, snowflake::getGenerateDateTime, null,
                () -> { });
    }

    /**
     * Yitter's default generator (method 1, "drift": when a millisecond's 6-bit sequence is used
     * up it borrows the following milliseconds instead of waiting), worker 1, base time
     * 2020-02-20. Its worker is static: one per JVM.
     */
    private static Peer yitter(String name) {
        IdGeneratorOptions options = new IdGeneratorOptions((short) 1);
        DefaultIdGenerator generator = new DefaultIdGenerator(options);
        int shift = options.WorkerIdBitLength + options.SeqBitLength;
        long base = options.BaseTime;
        return new Peer(name, generator::newLong, null, id -> (id >>> shift) + base, null,
                () -> { });
    }

    private static Logger quiet(String name) {
        Logger logger = Logger.getLogger(name);
        logger.setLevel(Level.WARNING);
        return logger;
    }

    /** RFC 9562: the first 48 bits of a UUIDv7 are its Unix time in ms. */
    private static long uuidV7Millis(UUID uuid) {
        return uuid.getMostSignificantBits() >>> 16;
    }

    private static void deleteTree(Path dir) throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.delete(p);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        }
    }
}

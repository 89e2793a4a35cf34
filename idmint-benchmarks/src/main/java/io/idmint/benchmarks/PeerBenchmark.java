package io.idmint.benchmarks;

import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;
import org.openjdk.jmh.infra.ThreadParams;

/**
 * idmint against published ID generators and JDK baselines, in one JMH run: one generator per
 * {@code impl}, shared by all benchmark threads, each call minting one ID (see {@link Peer} for
 * how each is set up).
 *
 * <ul>
 *   <li>{@code idmint}: one Snowflake worker from the static registry (layout {@code snowflake},
 *       4096 IDs/ms, waits for the next ms when they are used up: cap 4,096,000 IDs/s).
 *   <li>{@code idmintStriped}: the same with {@code workers(2)}: two leased workers, one home
 *       worker per thread (cap 2 x 4,096,000 IDs/s at 2 threads).
 *   <li>{@code idmintSegment}: {@code Segments} on the testkit's in-memory range store.
 *   <li>{@code cosidSnowflake}: CosId 2.13.3 {@code MillisecondSnowflakeId} (41/10/12 bits).
 *   <li>{@code cosidSegmentChain}: CosId {@code SegmentChainId} on its in-memory distributor.
 *   <li>{@code tsid}: tsid-creator 5.2.6 {@code TsidFactory}, node 1 (10 node bits).
 *   <li>{@code hutool}: Hutool 5.8.44 {@code Snowflake(1, 1)} (Twitter's 41/5/5/12 bits).
 *   <li>{@code yitter}: yitter-idgenerator 1.0.6 {@code DefaultIdGenerator}, default options.
 *   <li>{@code uuidV7}: uuid-creator 6.1.1 {@code UuidCreator.getTimeOrderedEpoch()}.
 *   <li>{@code jdkRandomUuid}: {@link UUID#randomUUID()}; {@code jdkAtomicLong}: one shared
 *       {@code AtomicLong.incrementAndGet()}, the ceiling of any counter.
 * </ul>
 *
 * <p><b>Lead:</b> every thread keeps the last ID it minted; after each iteration (a burst of
 * one to a few seconds at full speed) it prints {@code [lead] impl=NAME thread i/n: +L ms}: that
 * ID's timestamp, decoded with the library's own layout and epoch, minus
 * {@link System#currentTimeMillis()}. A positive lead means IDs were minted for a time that has
 * not come yet: a generator that borrows future milliseconds to go faster than its sequence
 * allows. Unlike {@code SnowflakeBenchmark} it does not fail the run, since some peers lead by
 * design. Duplicates are checked outside JMH by {@link PeerCheck}.
 *
 * <p>Run at 1 and 2 threads (or {@code scripts/bench peers}, which also runs {@link PeerCheck}
 * and prints the tables):
 *
 * <pre>
 * ./mvnw -B -q package -pl idmint-benchmarks -am -DskipTests
 * java -jar idmint-benchmarks/target/benchmarks.jar PeerBenchmark -t 1 \
 *     -f 1 -wi 3 -w 2s -i 5 -r 2s
 * java -jar idmint-benchmarks/target/benchmarks.jar PeerBenchmark -t 2 \
 *     -f 1 -wi 3 -w 2s -i 5 -r 2s
 * </pre>
 *
 * <p>Add {@code -p impl=idmint,tsid} for a subset. The ID is handed to a {@link Blackhole}
 * whatever its type, so 64-bit and UUID generators pay the same for being measured.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@State(Scope.Benchmark)
public class PeerBenchmark {

    /** The generator under test: a name {@link Peer#open} knows. */
    @Param({"idmint", "idmintStriped", "idmintFencedUuid", "idmintSegment", "cosidSnowflake",
        "cosidSegmentChain", "tsid", "hutool", "yitter", "uuidV7", "jdkRandomUuid",
        "jdkAtomicLong"})
    public String impl;

    Peer peer;

    /** The names of every {@code impl}, in the order of the {@code @Param} list. */
    static List<String> impls() {
        try {
            return List.of(PeerBenchmark.class.getField("impl").getAnnotation(Param.class)
                    .value());
        } catch (NoSuchFieldException e) {
            throw new AssertionError(e);
        }
    }

    @Setup(Level.Trial)
    public void open() throws Exception {
        peer = Peer.open(impl);
    }

    @TearDown(Level.Trial)
    public void close() throws Exception {
        peer.close();
    }

    /**
     * The last ID one thread minted. Plain fields in thread-local state: recording costs a store
     * to a line no other thread touches.
     */
    @State(Scope.Thread)
    public static class LastId {
        long id;
        UUID uuid;

        @TearDown(Level.Iteration)
        public void reportLead(PeerBenchmark bench, ThreadParams thread) {
            Peer peer = bench.peer;
            boolean minted = peer.longs != null ? id != 0 : uuid != null;
            if (!minted || !peer.hasTime()) {
                return;
            }
            long now = System.currentTimeMillis();
            long millis = peer.longs != null ? peer.millisOf(id) : peer.millisOf(uuid);
            System.err.printf("[lead] impl=%s thread %d/%d: %+d ms%n", peer.name,
                    thread.getThreadIndex() + 1, thread.getThreadCount(), millis - now);
        }
    }

    @Benchmark
    public void mint(LastId last, Blackhole bh) {
        // One branch on a field fixed for the trial: predicted, and the same for every impl.
        if (peer.longs != null) {
            long id = peer.longs.getAsLong();
            last.id = id;
            bh.consume(id);
        } else {
            UUID id = peer.uuids.get();
            last.uuid = id;
            bh.consume(id);
        }
    }
}

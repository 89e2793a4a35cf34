package io.idmint.benchmarks;

import static me.ahoo.cosid.segment.IdSegment.TIME_TO_LIVE_FOREVER;

import io.idmint.segment.SegmentGenerator;
import io.idmint.segment.SegmentOrder;
import io.idmint.segment.SegmentSequence;
import io.idmint.segment.Segments;
import io.idmint.testkit.InMemoryRangeStore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import me.ahoo.cosid.segment.DefaultSegmentId;
import me.ahoo.cosid.segment.IdSegmentDistributor;
import me.ahoo.cosid.segment.SegmentChainId;
import me.ahoo.cosid.segment.concurrent.PrefetchWorkerExecutorService;
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
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Throughput of one segment sequence shared by all benchmark threads, idmint beside CosId 2.13.3
 * and the JDK's ceiling, at 1 and at 2 threads ({@code oneThread}, {@code twoThreads}) and at
 * steps of 100, 1,000 and 10,000 IDs a range, all in one run:
 *
 * <ul>
 *   <li>{@code idmint}: {@link SegmentSequence#next()} of a handle from
 *       {@link SegmentGenerator#sequence(String)}, default order ({@link SegmentOrder#ISSUE}:
 *       IDs in the order the calls take them).
 *   <li>{@code idmintRelaxed}: the same with {@link SegmentOrder#RELAXED} (each thread serves a
 *       block of its own: unique, increasing per thread, not in issue order across threads).
 *   <li>{@code idmintByName}: {@link SegmentGenerator#next(String)}, issue order: what the handle
 *       saves, the look-up of the tag by name.
 *   <li>{@code cosidChain}: CosId's {@link SegmentChainId#generate()}, configured as in CosId's
 *       own {@code SegmentIdBenchmark} (safe distance 10, the shared prefetch executor).
 *   <li>{@code cosidDefault}: CosId's {@link DefaultSegmentId#generate()}.
 *   <li>{@code atomicLong}: {@link AtomicLong#incrementAndGet()} on one shared counter, alone on
 *       its cache line: the ceiling of any scheme with one shared counter ({@code step} does not
 *       apply; it runs once per step).
 * </ul>
 *
 * <p>The stores are in memory, so that the hot paths are measured, not a database: idmint's
 * {@link InMemoryRangeStore} (the testkit's) with the tag created at {@code step}, CosId's
 * {@link IdSegmentDistributor.Atomic} with {@code step}. Both adapt under load as they are built
 * to: idmint doubles the step of a range that lasted under its target duration, CosId widens its
 * prefetch distance when hungry, merging segments, so {@code step} is the step each starts from.
 * idmint's {@code maxStep} is raised to 2^30 ({@code maxStep} param), as for any tag drawn from at
 * hundreds of millions a second: at the default, 1,000,000, a range lasts 2 to 3 ms here, and a
 * prefetch that the scheduler runs late because both cores are busy with the benchmark threads
 * makes callers wait (run {@code -p maxStep=1000000} to see it; {@code [stats]} shows the mean
 * fetch time as {@code fetchNanos / ranges}).
 *
 * <p>Targets: {@code idmint} above {@code cosidChain} at every point; {@code idmintRelaxed} at
 * least 4 x {@code cosidChain} at 2 threads. Build and run ({@code scripts/bench segments} does
 * both and prints each implementation's ratio to {@code cosidChain}):
 *
 * <pre>
 * ./mvnw -B -q -pl idmint-benchmarks -am package -DskipTests
 * java -jar idmint-benchmarks/target/benchmarks.jar SegmentBenchmark \
 *     -f 1 -wi 3 -w 1s -i 5 -r 1s -foe true
 * </pre>
 *
 * <p>Measured 2026-11-21 with {@code BENCH_NICE=-10 scripts/bench segments} (that command, at
 * niceness -10) on a shared machine at load average 2.2, M IDs/s at steps 100 / 1,000 / 10,000:
 * 1 thread: idmint 430 / 382 / 443, idmintRelaxed 274 / 262 / 268, idmintByName 164 / 160 / 129,
 * cosidChain 179 / 172 / 173, cosidDefault 246 / 261 / 242, atomicLong 461 / 450 / 456;
 * 2 threads: idmint 149 / 157 / 168 (2.4 to 2.7 x cosidChain), idmintRelaxed 511 / 416 / 510
 * (6.4 to 8.1 x), idmintByName 166 / 152 / 144, cosidChain 63 / 65 / 63, cosidDefault
 * 70 / 68 / 109, atomicLong 210 / 141 / 179. JDK 17.0.15 (Debian), JMH 1.37, CosId 2.13.3,
 * 2 vCPU AMD EPYC (Firecracker VM). 2-thread figures are only real when both threads get a core.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@State(Scope.Benchmark)
public class SegmentBenchmark {

    @Param({"idmint", "idmintRelaxed", "idmintByName", "cosidChain", "cosidDefault",
        "atomicLong"})
    public String impl;

    /** IDs a range: idmint's tag step, CosId's distributor step. */
    @Param({"100", "1000", "10000"})
    public int step;

    /** idmint's largest step, to which adaptation grows the step under this load. */
    @Param("1073741824")
    public long maxStep;

    private LongSupplier ids;
    private SegmentGenerator generator;
    private final long[][] padding = new long[2][];

    @Setup(Level.Trial)
    public void open() throws Exception {
        switch (impl) {
            case "idmint" -> ids = idmint(SegmentOrder.ISSUE);
            case "idmintRelaxed" -> ids = idmint(SegmentOrder.RELAXED);
            case "idmintByName" -> {
                idmint(SegmentOrder.ISSUE);
                ids = () -> generator.next("bench");
            }
            case "cosidChain" -> ids = new SegmentChainId(TIME_TO_LIVE_FOREVER, 10,
                    new IdSegmentDistributor.Atomic(step),
                    PrefetchWorkerExecutorService.DEFAULT)::generate;
            case "cosidDefault" ->
                ids = new DefaultSegmentId(new IdSegmentDistributor.Atomic(step))::generate;
            case "atomicLong" -> ids = isolatedCounter()::incrementAndGet;
            default -> throw new IllegalArgumentException("unknown impl " + impl);
        }
        if (ids.getAsLong() < 0) {
            throw new IllegalStateException(impl + " gave a negative ID");
        }
    }

    /**
     * An {@link AtomicLong} alone on its cache line, so that the ceiling is one: allocated between
     * two arrays, it would otherwise share its line with the method reference's captured field,
     * which every call reads, and each call would move the line twice.
     */
    private AtomicLong isolatedCounter() {
        padding[0] = new long[16];
        AtomicLong counter = new AtomicLong();
        padding[1] = new long[16];
        return counter;
    }

    private LongSupplier idmint(SegmentOrder order) throws Exception {
        InMemoryRangeStore store = new InMemoryRangeStore();
        store.create("bench", 1, step);
        generator = Segments.newBuilder().store(store).maxStep(maxStep).order(order).build();
        return generator.sequence("bench")::next;
    }

    /**
     * Prints idmint's counters, to show how much the store was asked: {@code [stats] ranges}
     * fetched, the last step (adaptation), and whether the next range was in (no caller waited).
     */
    @TearDown(Level.Trial)
    public void close() {
        if (generator != null) {
            System.err.println("[stats] " + impl + " step " + step + ": " + generator.stats());
            generator.close();
        }
    }

    @Benchmark
    @Threads(1)
    public long oneThread() {
        return ids.getAsLong();
    }

    @Benchmark
    @Threads(2)
    public long twoThreads() {
        return ids.getAsLong();
    }
}

package io.idmint.benchmarks;

import io.idmint.segment.SegmentGenerator;
import io.idmint.segment.SegmentSequence;
import io.idmint.segment.Segments;
import io.idmint.segment.Serial;
import io.idmint.segment.SerialDefinition;
import io.idmint.segment.SerialPeriod;
import io.idmint.segment.Serials;
import io.idmint.testkit.InMemoryRangeStore;
import java.time.ZoneId;
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
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * A serial's {@code next()} (docs/serials.md), formatting included, beside a plain segment
 * {@code next()} on the same store, one thread, in one run:
 *
 * <ul>
 *   <li>{@code segment}: {@link SegmentSequence#next()} of a handle, the long alone;
 *   <li>{@code serialCounter}: {@link Serial#next()} of a serial written {@code {counter}};
 *   <li>{@code serialInvoice}: {@link Serial#next()} of a daily serial written
 *       {@code INV-{date:yyyyMMdd}-{counter:9}{check}} in Europe/Berlin: a clock read, the
 *       period check, the digits padded and the check symbol;
 * </ul>
 *
 * <p>The store is in memory (the testkit's), both draw ranges of {@code step} values (the
 * serial's {@code step}, the tag's first step), so that what is measured is the hot path.
 * Targets (issue 35): a serial's {@code next()} within 3 x of the segment's, and at least 10 M
 * serial values a second on one thread. {@code scripts/bench} does not run it; run:
 *
 * <pre>
 * ./mvnw -B -q -pl idmint-benchmarks -am package -DskipTests
 * java -jar idmint-benchmarks/target/benchmarks.jar SerialBenchmark -f 1 -wi 3 -w 1s -i 5 -r 1s
 * </pre>
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(1)
@Threads(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@State(Scope.Benchmark)
public class SerialBenchmark {

    @Param({"segment", "serialCounter", "serialInvoice"})
    public String impl;

    /** Values a range. */
    @Param("10000")
    public long step;

    private SegmentGenerator generator;
    private SegmentSequence sequence;
    private Serial serial;

    @Setup(Level.Trial)
    public void open() throws Exception {
        InMemoryRangeStore store = new InMemoryRangeStore();
        switch (impl) {
            case "segment" -> {
                store.create("bench", 1, step);
                generator = Segments.newBuilder().store(store).step(step).build();
                sequence = generator.sequence("bench");
            }
            case "serialCounter" -> serial = Serials.newBuilder().store(store).build()
                    .define(SerialDefinition.newBuilder("bench").template("{counter}")
                            .step(step).build());
            case "serialInvoice" -> serial = Serials.newBuilder().store(store).build()
                    .define(SerialDefinition.newBuilder("bench").period(SerialPeriod.DAY)
                            .zone(ZoneId.of("Europe/Berlin")).maxRate(10_000)
                            .template("INV-{date:yyyyMMdd}-{counter:9}{check}").step(step)
                            .build());
            default -> throw new IllegalArgumentException("unknown impl " + impl);
        }
    }

    @TearDown(Level.Trial)
    public void close() {
        if (generator != null) {
            generator.close();
        }
    }

    @Benchmark
    public Object next() {
        return sequence != null ? (Object) sequence.next() : serial.next();
    }
}

package io.idmint.benchmarks;

import io.idmint.IdCodec;
import io.idmint.codes.CodeCodec;
import io.idmint.codes.Codes;
import io.idmint.codes.Keys;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Public codes per second per core: {@link CodeCodec#encode(long)} and
 * {@link CodeCodec#decode(String)} (FF1-AES over 63 bits, Bouncy Castle 1.86, plus the base32
 * text and check symbol), with AES-128 and AES-256 keys as a {@code @Param}. The JDK-only
 * baseline {@code base32Baseline} writes the raw ID as base32 ({@link IdCodec#BASE32}): what a
 * code costs over plain text is FF1's ten AES-CBC-MAC rounds and Bouncy Castle's
 * {@code BigInteger} arithmetic between them. IDs are random, as order numbers would be; each
 * benchmark thread has its own engines, so per-core throughput scales with threads.
 *
 * <pre>
 * ./mvnw -B -q -pl idmint-benchmarks -am package -DskipTests
 * java -jar idmint-benchmarks/target/benchmarks.jar CodeBenchmark -t 1 \
 *     -f 1 -wi 3 -w 2s -i 5 -r 2s
 * </pre>
 *
 * <p>Measured 2026-11-21 with that command on a <em>loaded</em> machine (load average 14-16 on
 * 2 vCPUs, other builds and benchmarks running; errors of ±100%, so a floor, not a figure):
 * encode 47.7 k/s (AES-128) and 35.2 k/s (AES-256), decode 37.4 k / 28.8 k,
 * {@code base32Baseline} 38 M. Per-thread CPU time at the same time gave 6.5 µs per encode and
 * 6.4 µs per decode with AES-128 (about 150,000 codes per second per core), 6.7 / 6.7 µs with
 * AES-256: the figure to expect on an idle core. JDK 17.0.15 (Debian), Bouncy Castle 1.86,
 * JMH 1.37, 2 vCPU AMD EPYC (Firecracker VM). Re-run on a quiet machine before publishing.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@State(Scope.Thread)
public class CodeBenchmark {

    private static final int CODES = 4096;

    /** AES key size in bits. */
    @Param({"128", "256"})
    public int keyBits;

    private CodeCodec codec;
    private long[] ids;
    private String[] codes;
    private int next;

    @Setup
    public void setUp() {
        byte[] key = Keys.generate();
        if (keyBits == 128) {
            key = java.util.Arrays.copyOf(key, 16);
        }
        codec = Codes.newBuilder().key(1, key).build();
        SplittableRandom random = new SplittableRandom(42);
        ids = new long[CODES];
        codes = new String[CODES];
        for (int i = 0; i < CODES; i++) {
            ids[i] = random.nextLong() & Long.MAX_VALUE;
            codes[i] = codec.encode(ids[i]);
        }
    }

    @Benchmark
    public String encode() {
        return codec.encode(ids[next++ & (CODES - 1)]);
    }

    @Benchmark
    public long decode() {
        return codec.decode(codes[next++ & (CODES - 1)]);
    }

    @Benchmark
    public String base32Baseline() {
        return IdCodec.BASE32.format(ids[next++ & (CODES - 1)]);
    }
}

package io.idmint.benchmarks;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.util.ByteArrayBuilder;
import io.idmint.server.json.JsonBytes;
import io.vertx.core.buffer.Buffer;
import java.io.IOException;
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
 * The hot HTTP answer, {@code {"ids":["…",…]}} (IDs as JSON strings), written into a response
 * buffer two ways: the server's hand-written bytes ({@link JsonBytes}, as {@code IdEndpoints}
 * writes it, into a reused array) and Jackson's streaming generator (the JSON library the server
 * carries through Vert.x, into a reused {@link ByteArrayBuilder}). The count is a
 * {@code @Param}: 1 (the single-ID call), 100 and 1000 (batches). Whether the hand-written bytes
 * earn their place is this benchmark's ratio; the figure is in {@code json.JsonBytes}.
 *
 * <pre>
 * ./mvnw -B -q -pl idmint-benchmarks -am package -DskipTests
 * java -jar idmint-benchmarks/target/benchmarks.jar JsonBenchmark -t 1 -f 1 -wi 3 -w 2s -i 5 -r 2s
 * </pre>
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@State(Scope.Thread)
public class JsonBenchmark {

    private static final byte[] IDS_OPEN = JsonBytes.ascii("{\"ids\":[");
    private static final byte[] IDS_CLOSE = JsonBytes.ascii("]}");

    /** IDs per answer. */
    @Param({"1", "100", "1000"})
    public int count;

    private long[] ids;
    private final JsonBytes bytes = new JsonBytes(64 * 1024);
    private final JsonFactory jackson = JsonFactory.builder().build();
    private final ByteArrayBuilder jacksonOut = new ByteArrayBuilder(64 * 1024);

    @Setup
    public void setUp() {
        SplittableRandom random = new SplittableRandom(42);
        ids = new long[count];
        long id = random.nextLong(1L << 62);
        for (int i = 0; i < count; i++) {
            ids[i] = id += 1 + random.nextInt(4096);
        }
    }

    @Benchmark
    public Buffer jsonBytes() {
        JsonBytes out = bytes.reset().reserve(count * 22 + 10).raw(IDS_OPEN);
        for (int i = 0; i < count; i++) {
            if (i > 0) {
                out.raw(',');
            }
            out.quoted(ids[i]);
        }
        return out.raw(IDS_CLOSE).toBuffer();
    }

    @Benchmark
    public Buffer jacksonGenerator() throws IOException {
        jacksonOut.reset();
        try (JsonGenerator g = jackson.createGenerator(jacksonOut)) {
            g.writeStartObject();
            g.writeArrayFieldStart("ids");
            for (int i = 0; i < count; i++) {
                g.writeString(Long.toString(ids[i]));
            }
            g.writeEndArray();
            g.writeEndObject();
        }
        return Buffer.buffer(jacksonOut.toByteArray());
    }
}

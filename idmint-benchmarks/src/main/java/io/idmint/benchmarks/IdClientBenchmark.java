package io.idmint.benchmarks;

import io.grpc.ManagedChannel;
import io.grpc.netty.NettyChannelBuilder;
import io.idmint.client.IdClient;
import io.idmint.grpc.v1.IdServiceGrpc;
import io.idmint.grpc.v1.NextIdsResponse;
import io.idmint.grpc.v1.StreamIdsRequest;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * {@link IdClient#nextId()} beside raw StreamIds, one ID per operation, against one local
 * {@code idmint serve --workers 2} that the benchmark starts (the shaded jar: system property
 * {@code idmint.jar}, else {@code idmint-server/target/idmint.jar} under the working directory).
 * {@code client} shares one client among the benchmark threads, as an application would;
 * {@code rawStreamIds} gives each thread a StreamIds call of its own and reads its batches with
 * grpc-java's blocking stub, the most a caller gets without a buffer. Targets
 * (docs/benchmarks.md, "Java client"): {@code client} at least 3 M IDs/s on 1 thread and 4 M on
 * 2, each at least 0.7 x {@code rawStreamIds} in the same run; p99 per call under 5 us warm
 * ({@code -bm sample}).
 *
 * <pre>
 * ./mvnw -B -q -pl idmint-server,idmint-benchmarks -am package -DskipTests
 * java -jar idmint-benchmarks/target/benchmarks.jar IdClientBenchmark -t 1 \
 *     -f 1 -wi 3 -w 2s -i 5 -r 2s -foe true
 * </pre>
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@State(Scope.Benchmark)
public class IdClientBenchmark {

    private static final Pattern BANNER = Pattern.compile("grpc 127\\.0\\.0\\.1:(\\d+)");

    private Process server;
    private Path data;
    String target;
    IdClient client;

    @Setup(Level.Trial)
    public void start() throws IOException {
        String jar = System.getProperty("idmint.jar", "idmint-server/target/idmint.jar");
        if (!new File(jar).isFile()) {
            throw new IllegalStateException("no server jar at " + new File(jar).getAbsolutePath()
                    + ": build idmint-server (package) or set -Didmint.jar");
        }
        data = Files.createTempDirectory("idmint-client-bench");
        server = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java")
                .toString(), "-jar", jar, "serve", "--bind", "127.0.0.1", "--http-port", "0",
                "--grpc-port", "0", "--workers", "2", "--data-dir", data.toString())
                .redirectError(data.resolve("serve.err").toFile()).start();
        BufferedReader out = new BufferedReader(new InputStreamReader(server.getInputStream(),
                StandardCharsets.UTF_8));
        String banner = out.readLine();
        Matcher m = banner == null ? null : BANNER.matcher(banner);
        if (m == null || !m.find()) {
            server.destroyForcibly();
            throw new IllegalStateException("no banner from idmint serve: " + banner + "; "
                    + Files.readString(data.resolve("serve.err")));
        }
        Thread drain = new Thread(() -> {
            try {
                out.transferTo(Writer.nullWriter());
            } catch (IOException e) {
                // the server is gone
            }
        });
        drain.setDaemon(true);
        drain.start();
        target = "127.0.0.1:" + m.group(1);
        client = IdClient.connect(List.of(target));
    }

    @TearDown(Level.Trial)
    public void stop() throws Exception {
        System.out.println("\n[client] " + client.stats() + ", memory at most "
                + 8 * (IdClient.DEFAULT_BUFFER_SIZE + 1000) / 1024
                + " KiB of IDs + 4 batches ahead + 256 KiB HTTP/2 window");
        client.close();
        server.destroy();
        server.waitFor(15, TimeUnit.SECONDS);
    }

    /** One thread's own StreamIds call. */
    @State(Scope.Thread)
    public static class RawStream {
        private ManagedChannel channel;
        private IdServiceGrpc.IdServiceBlockingStub stub;
        private Iterator<NextIdsResponse> stream;
        private NextIdsResponse batch = NextIdsResponse.getDefaultInstance();
        private int next;

        @Setup(Level.Trial)
        public void open(IdClientBenchmark bench) {
            channel = NettyChannelBuilder.forTarget(bench.target).usePlaintext().build();
            stub = IdServiceGrpc.newBlockingStub(channel);
            stream = stub.streamIds(StreamIdsRequest.newBuilder().setCount(100_000_000L).build());
        }

        long next() {
            if (next == batch.getIdsCount()) {
                if (!stream.hasNext()) {
                    // 100,000,000 IDs read: the next call.
                    stream = stub.streamIds(StreamIdsRequest.newBuilder()
                            .setCount(100_000_000L).build());
                }
                batch = stream.next();
                next = 0;
            }
            return batch.getIds(next++);
        }

        @TearDown(Level.Trial)
        public void close() {
            channel.shutdownNow();
        }
    }

    @Benchmark
    public long client() {
        return client.nextId();
    }

    @Benchmark
    public long rawStreamIds(RawStream stream) {
        return stream.next();
    }
}

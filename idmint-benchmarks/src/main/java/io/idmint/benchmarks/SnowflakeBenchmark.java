package io.idmint.benchmarks;

import io.idmint.IdGenerator;
import io.idmint.IdParts;
import io.idmint.Layout;
import io.idmint.SequenceStart;
import io.idmint.Snowflake;
import io.idmint.WorkerRegistries;
import io.idmint.spi.WorkerRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
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
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.ThreadParams;

/**
 * Throughput of one Snowflake worker, and of a generator striped over two, against JDK
 * baselines, with a check that the generator never runs ahead of the wall clock.
 *
 * <ul>
 *   <li>{@code idmintSnowflake}: {@link IdGenerator#nextId()} on one generator shared by all
 *       benchmark threads (default layout {@code snowflake}, default policy: wait for the next
 *       millisecond when its 4096 sequence numbers are used up). Its ceiling is the layout's cap,
 *       4096 IDs/ms = <b>4,096,000 ops/s</b>, however fast the hot path is.
 *   <li>{@code idmintSnowflakeRandomStart}: the same, built with {@code sequenceStart(
 *       SequenceStart.random(16, …))}: each millisecond starts at a sequence below 16, so the
 *       cap is at least 4081 IDs/ms (4,081,000 ops/s) and 4088.5 on average (4,088,500 ops/s,
 *       99.8 % of the zero start's). Target: within 2 % of {@code idmintSnowflake}.
 *   <li>{@code idmintStriped}: the same call on a generator built with {@code workers(2)}: two
 *       leased workers, each thread on its own (round-robin on first use). Its ceiling is twice
 *       the cap at 2 threads, <b>8,192,000 ops/s</b>; at 1 thread it is one worker's cap.
 *   <li>{@code uuidRandom}: {@link UUID#randomUUID()}, the JDK's no-coordination ID (122 bits
 *       from {@code SecureRandom}; no ordering, no cap).
 *   <li>{@code atomicLongIncrement}: {@link AtomicLong#incrementAndGet()} on one shared counter,
 *       one shared atomic add ({@code lock xadd}) and no clock: the ceiling of any
 *       counter-based scheme on this machine.
 * </ul>
 *
 * <p><b>Targets:</b> {@code idmintSnowflake} at ≥ 99% of the cap (≥ 4,055,040 ops/s) at 1 and
 * at 2 threads; {@code idmintStriped} at ≥ 1.9 × the cap (≥ 7,782,400 ops/s) at 2 threads.
 *
 * <p><b>Lead check:</b> every idmint thread records the last ID it took; at the end of each
 * iteration it prints {@code [lead] ...} to stderr with that ID's timestamp minus
 * {@link System#currentTimeMillis()}, and throws if the lead is over 1 ms ({@code maxLeadMillis}).
 * It must be ≤ 0: a positive lead means IDs were minted for a time that has not come yet. With
 * {@code -foe true} such a failure makes JMH exit non-zero. Each thread also checks that every
 * ID it takes is above the one before (one compare on a thread-confined field).
 *
 * <p><b>Duplicate check:</b> after each trial, outside the measurement, the same generator mints
 * 1,000,000 IDs on each of 2 threads; they are sorted and checked for a duplicate, and
 * {@code [unique] ...} is printed to stderr (a duplicate throws).
 *
 * <p>Build, then run at 1 and at 2 threads (or {@code scripts/bench snowflake}, which does all):
 *
 * <pre>
 * ./mvnw -B -q -pl idmint-benchmarks -am package -DskipTests
 * java -jar idmint-benchmarks/target/benchmarks.jar SnowflakeBenchmark -t 1 \
 *     -f 1 -wi 3 -w 2s -i 5 -r 2s -foe true
 * java -jar idmint-benchmarks/target/benchmarks.jar SnowflakeBenchmark -t 2 \
 *     -f 1 -wi 3 -w 2s -i 5 -r 2s -foe true
 * </pre>
 *
 * <p>Measured 2026-11-21 with {@code scripts/bench snowflake} (the commands above) while the
 * shared machine was quiet: {@code idmintStriped} at 2 threads 8,159,644 ops/s (1.992 x the
 * cap), {@code idmintSnowflake} 4,094,423 at 2 threads and 4,096,954 at 1 (a rerun of the two
 * idmint methods: the script's own 1-thread run lost CPU to other processes), lead at most 0 ms
 * in every iteration, no duplicate; {@code uuidRandom} 4.95 M / 3.19 M;
 * {@code atomicLongIncrement} 452 M / 257 M. JDK 17.0.15 (Debian), JMH 1.37, 2 vCPU AMD EPYC
 * (Firecracker VM, clocksource tsc). The cap is a wall-clock limit: CPU taken by other
 * processes lowers the idmint score directly.
 *
 * <p>They are methods rather than one {@code @Param} because their state differs (leased
 * workers with a per-iteration check against a bare counter); JMH still prints them in one table.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class SnowflakeBenchmark {

    /** One generator and its registry, shared by every thread, for the whole trial. */
    @State(Scope.Benchmark)
    public static class Idmint {
        final Leased leased = new Leased();
        IdGenerator generator;

        @Setup(Level.Trial)
        public void open() throws IOException {
            generator = leased.open(1);
        }

        @TearDown(Level.Trial)
        public void close() throws IOException, InterruptedException {
            leased.close("idmintSnowflake");
        }
    }

    /** As {@link Idmint}, striped over two leased workers. */
    @State(Scope.Benchmark)
    public static class IdmintStriped {
        final Leased leased = new Leased();
        IdGenerator generator;

        @Setup(Level.Trial)
        public void open() throws IOException {
            generator = leased.open(2);
        }

        @TearDown(Level.Trial)
        public void close() throws IOException, InterruptedException {
            leased.close("idmintStriped");
        }
    }

    /** As {@link Idmint}, each tick starting at a random sequence below 16. */
    @State(Scope.Benchmark)
    public static class IdmintRandomStart {
        final Leased leased = new Leased();
        IdGenerator generator;

        @Setup(Level.Trial)
        public void open() throws IOException {
            generator = leased.open(1, SequenceStart.random(SequenceStart.DEFAULT_RANDOM_SPAN,
                    new SplittableRandom(42)));
        }

        @TearDown(Level.Trial)
        public void close() throws IOException, InterruptedException {
            leased.close("idmintSnowflakeRandomStart");
        }
    }

    /** A generator on a {@code static:} registry in a temporary directory. */
    static final class Leased {
        private Path dataDir;
        private WorkerRegistry registry;
        private IdGenerator generator;

        IdGenerator open(int workers) throws IOException {
            return open(workers, SequenceStart.zero());
        }

        IdGenerator open(int workers, SequenceStart start) throws IOException {
            dataDir = Files.createTempDirectory("idmint-bench-");
            registry = WorkerRegistries.local(dataDir);
            generator = Snowflake.newBuilder().registry(registry).workers(workers)
                    .sequenceStart(start).build();
            return generator;
        }

        /** Checks for duplicates, then releases the workers and deletes the directory. */
        void close(String name) throws IOException, InterruptedException {
            try {
                checkUnique(name);
            } finally {
                generator.close();
                registry.close();
                try (Stream<Path> files = Files.walk(dataDir)) {
                    files.sorted(Comparator.reverseOrder()).forEach(Leased::delete);
                }
            }
        }

        /**
         * 2 threads x 1,000,000 {@code nextId()} calls, outside the measurement: any duplicate
         * or non-positive ID throws.
         */
        private void checkUnique(String name) throws InterruptedException {
            int perThread = 1_000_000;
            long[] all = new long[2 * perThread];
            Thread[] threads = new Thread[2];
            for (int t = 0; t < threads.length; t++) {
                int from = t * perThread;
                threads[t] = new Thread(() -> {
                    for (int i = from; i < from + perThread; i++) {
                        all[i] = generator.nextId();
                    }
                });
                threads[t].start();
            }
            for (Thread t : threads) {
                t.join();
            }
            Arrays.sort(all);
            Set<Integer> workers = new TreeSet<>();
            for (int i = 0; i < all.length; i++) {
                if (all[i] <= 0 || i > 0 && all[i] == all[i - 1]) {
                    throw new IllegalStateException(name + ": duplicate or non-positive ID "
                            + all[i] + " among " + all.length);
                }
                workers.add(generator.layout().decode(all[i]).workerId());
            }
            System.err.printf("[unique] %s: %,d IDs from 2 threads, no duplicate, workers %s%n",
                    name, all.length, workers);
        }

        private static void delete(Path p) {
            try {
                Files.delete(p);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    /**
     * The last ID one thread took. A plain field in thread-local state: recording it costs a
     * store to a line no other thread touches, so it does not disturb the shared CAS being
     * measured.
     */
    @State(Scope.Thread)
    public static class LastId {
        /**
         * Largest lead tolerated before the run fails (the generator's own rule is 0). Raise it,
         * e.g. {@code -p maxLeadMillis=1000}, only to measure throughput despite a known lead bug.
         */
        @Param("1")
        public long maxLeadMillis;

        long id = -1;

        /** Keeps the ID as this thread's last, after checking it is above the one before. */
        long record(long next) {
            if (next <= id) {
                throw new IllegalStateException("ID " + next + " is not above this thread's "
                        + "previous ID " + id);
            }
            id = next;
            return next;
        }

        @TearDown(Level.Iteration)
        public void checkLead(BenchmarkParams params, ThreadParams thread) {
            if (id < 0) {
                return;
            }
            long now = System.currentTimeMillis();
            IdParts last = Layout.SNOWFLAKE.decode(id);
            long lead = last.timestampMillis() - now;
            String name = params.getBenchmark().substring(params.getBenchmark().lastIndexOf('.')
                    + 1);
            System.err.printf("[lead] %s thread %d/%d (worker %d): last ID at %+d ms from the "
                    + "wall clock%n", name, thread.getThreadIndex() + 1, thread.getThreadCount(),
                    last.workerId(), lead);
            if (lead > maxLeadMillis) {
                throw new IllegalStateException("idmint ran ahead of the clock: last ID " + id
                        + " is " + lead + " ms ahead of System.currentTimeMillis() (max "
                        + maxLeadMillis + " ms)");
            }
            id = -1;
        }
    }

    /** The baseline counter, shared by every thread. */
    @State(Scope.Benchmark)
    public static class Counter {
        final AtomicLong value = new AtomicLong();
    }

    @Benchmark
    public long idmintSnowflake(Idmint idmint, LastId last) {
        return last.record(idmint.generator.nextId());
    }

    @Benchmark
    public long idmintSnowflakeRandomStart(IdmintRandomStart idmint, LastId last) {
        return last.record(idmint.generator.nextId());
    }

    @Benchmark
    public long idmintStriped(IdmintStriped idmint, LastId last) {
        return last.record(idmint.generator.nextId());
    }

    @Benchmark
    public UUID uuidRandom() {
        return UUID.randomUUID();
    }

    @Benchmark
    public long atomicLongIncrement(Counter counter) {
        return counter.value.incrementAndGet();
    }
}

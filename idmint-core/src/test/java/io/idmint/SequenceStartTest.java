package io.idmint;

import static io.idmint.Nodes.T0;
import static io.idmint.Nodes.ms;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idmint.testkit.IdOracle;
import io.idmint.testkit.InMemoryRegistry;
import io.idmint.testkit.ManualTimeSource;
import java.time.Duration;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link SequenceStart}: a random first sequence per tick keeps every guarantee (strictly
 * increasing per generator and per thread, capacity down by less than the span), and makes
 * {@code id % N} uniform at low rates where a zero start is not.
 */
class SequenceStartTest {

    /** Upper 0.1 % points of χ² with 15 and 1023 degrees of freedom (from the tables). */
    static final double CRITICAL_15 = 37.697;
    static final double CRITICAL_1023 = 1168.497;

    private final ManualTimeSource time = new ManualTimeSource(T0).autoAdvance();
    private final InMemoryRegistry registry = new InMemoryRegistry(time);

    private static SequenceStart random(int span) {
        return SequenceStart.random(span, new SplittableRandom(span));
    }

    /** The measurement the docs quote: χ² of {@code id % 16} and {@code id % 1024}. */
    @Test
    void chiSquare_randomStartIsUniformAtOneIdPerTick_zeroStartIsNot() {
        int n = 1 << 16;
        StringBuilder table = new StringBuilder(String.format(Locale.ROOT,
                "%-18s %-10s %12s %12s%n", "sequence.start", "rate", "chi2 id%16",
                "chi2 id%1024"));
        SequenceStart[] starts = {SequenceStart.zero(), random(10), random(16), random(64),
            random(1024)};
        double[][] low = new double[starts.length][];
        for (int i = 0; i < starts.length; i++) {
            low[i] = chiSquares(mint(starts[i], n, true));
            double[] full = chiSquares(mint(starts[i], n, false));
            table.append(row(starts[i], "1,000/s", low[i]));
            table.append(row(starts[i], "full speed", full));
            assertThat(full[0]).as("a full tick covers every residue of 16, whatever its start")
                    .isLessThan(CRITICAL_15);
        }
        System.out.print(table.append(String.format(Locale.ROOT,
                "critical values at p = 0.001: %.1f (15 df), %.1f (1023 df)%n", CRITICAL_15,
                CRITICAL_1023)));
        assertThat(low[0][0]).as("zero start at 1,000/s: every ID ends in sequence 0")
                .isGreaterThan(CRITICAL_15);
        assertThat(low[1][0]).as("span 10 (CustomUUID's 0-9) leaves 6 residues of 16 empty")
                .isGreaterThan(CRITICAL_15);
        for (int i = 2; i < starts.length; i++) {
            assertThat(low[i][0]).as(starts[i] + " at 1,000/s: id %% 16 consistent with uniform")
                    .isLessThan(CRITICAL_15);
        }
        assertThat(low[2][1]).as("span 16 reaches only 16 of 1024 residues")
                .isGreaterThan(CRITICAL_1023);
        assertThat(low[4][1]).as("span 1024 at 1,000/s: id %% 1024 consistent with uniform")
                .isLessThan(CRITICAL_1023);
    }

    /** n IDs, one per millisecond when {@code slow}, else as fast as the ticks allow. */
    private long[] mint(SequenceStart start, int n, boolean slow) {
        ManualTimeSource clock = new ManualTimeSource(T0).autoAdvance();
        try (IdGenerator g = Nodes.manual(new InMemoryRegistry(clock), clock,
                b -> b.sequenceStart(start))) {
            long[] ids = new long[n];
            for (int i = 0; i < n; i++) {
                ids[i] = g.nextId();
                if (slow) {
                    clock.advance(ms(1));
                }
                if (clock.currentTimeMillis() % 1000 == 0) {
                    Nodes.step(g); // renew the reservation as the maintenance thread would
                }
            }
            IdOracle.assertStrictlyIncreasing(ids);
            return ids;
        }
    }

    private static double[] chiSquares(long[] ids) {
        return new double[] {chiSquare(ids, 16), chiSquare(ids, 1024)};
    }

    static double chiSquare(long[] ids, int bins) {
        long[] counts = new long[bins];
        for (long id : ids) {
            counts[(int) Math.floorMod(id, (long) bins)]++;
        }
        double expected = (double) ids.length / bins;
        double sum = 0;
        for (long c : counts) {
            sum += (c - expected) * (c - expected) / expected;
        }
        return sum;
    }

    private static String row(SequenceStart s, String rate, double[] chi) {
        return String.format(Locale.ROOT, "%-18s %-10s %12.1f %12.1f%n", s, rate, chi[0], chi[1]);
    }

    @Test
    void sequenceExhaustedInATick_randomStart_holdsAtLeastCapacityMinusSpan_thenNextTick() {
        try (IdGenerator g = Nodes.manual(registry, time, b -> b.sequenceStart(random(16)))) {
            time.advance(ms(1));
            long first = g.nextId();
            long start = Layout.SNOWFLAKE.decode(first).sequence();
            assertThat(start).isBetween(0L, 15L);
            long[] ids = new long[3 * 4096];
            ids[0] = first;
            int inFirstTick = 1;
            for (int i = 1; i < ids.length; i++) {
                ids[i] = g.nextId();
                if (Layout.SNOWFLAKE.decode(ids[i]).timestampMillis()
                        == Layout.SNOWFLAKE.decode(first).timestampMillis()) {
                    inFirstTick++;
                }
            }
            IdOracle.assertStrictlyIncreasing(ids);
            assertThat(inFirstTick).isEqualTo(4096 - start).isGreaterThanOrEqualTo(4096 - 15);
            assertThat(Layout.SNOWFLAKE.decode(ids[inFirstTick]).sequence())
                    .as("the next tick starts at a random sequence again").isBetween(0L, 15L);
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {2, 4096})
    void spanAtItsBounds_staysStrictlyIncreasing_everyTickHoldsAnId(int span) {
        try (IdGenerator g = Nodes.manual(registry, time, b -> b.sequenceStart(random(span)))) {
            long[] ids = new long[20_000];
            for (int i = 0; i < ids.length; i++) {
                ids[i] = g.nextId();
                if (i % 7 == 0) {
                    time.advance(ms(1));
                }
            }
            IdOracle.assertStrictlyIncreasing(ids);
            for (long id : ids) {
                assertThat(Layout.SNOWFLAKE.decode(id).sequence()).isLessThan(4096);
            }
        }
    }

    @Test
    void spanOutOfBounds_isRefusedNamingTheValue() {
        assertThatThrownBy(() -> SequenceStart.random(1, new SplittableRandom(1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("sequence.random-span").hasMessageContaining("got 1");
        assertThatThrownBy(() -> Nodes.manual(registry, time, b -> b.sequenceStart(random(4097))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("sequence.random-span 4097")
                .hasMessageContaining("4096 IDs per tick");
        assertThatThrownBy(() -> Nodes.manual(registry, time,
                b -> b.layout(Layout.JS_SAFE).sequenceStart(random(256))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("128 IDs per tick");
        assertThatThrownBy(() -> Snowflake.newBuilder().sequenceStart(SequenceStart.zero())
                .sequenceStart(random(2))).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void offset_isBelowTheSpan_andSeededReproducibly() {
        SequenceStart a = SequenceStart.random(10, new SplittableRandom(7));
        SequenceStart b = SequenceStart.random(10, new SplittableRandom(7));
        for (long tick = 0; tick < 10_000; tick++) {
            assertThat(a.offset(tick)).isBetween(0L, 9L).isEqualTo(b.offset(tick));
        }
        assertThat(SequenceStart.zero().offset(123)).isZero();
    }

    @Test
    void manyThreadsOnTheManualClock_randomStart_noDuplicate() throws Exception {
        try (IdGenerator g = Nodes.manual(registry, time,
                b -> b.sequenceStart(random(16)).maxLead(ms(3)))) {
            IdOracle.mintConcurrently(g, 8, 100_000);
        }
    }

    @Test
    void batches_randomStart_fillInOrderAcrossTicks() {
        try (IdGenerator g = Nodes.manual(registry, time, b -> b.sequenceStart(random(64)))) {
            long[] ids = new long[10_000];
            g.nextIds(ids, 0, 5_000);
            time.advance(ms(1));
            g.nextIds(ids, 5_000, ids.length);
            IdOracle.assertStrictlyIncreasing(ids);
        }
    }

    /**
     * The clock steps 3 ms back and forth, 40 times, while four threads mint, under both clock
     * policies: FAIL refuses while behind, CONTINUE issues on the logical clock.
     */
    @ParameterizedTest
    @ValueSource(strings = {"FAIL", "CONTINUE"})
    @Timeout(60) // a generator that never recovered would leave the minters retrying
    void clockStepsBackWhileThreadsMint_neverADuplicate(String policy) throws Exception {
        ManualTimeSource clock = new ManualTimeSource(T0 + 10_000).autoAdvance();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger refused = new AtomicInteger();
        AtomicInteger aheadOfClock = new AtomicInteger();
        AtomicLong progress = new AtomicLong(); // calls answered, IDs or refusals
        AtomicLong gate = new AtomicLong(2_000); // minters wait here for the next step
        CountDownLatch done = new CountDownLatch(4);
        try (IdGenerator g = Nodes.manual(new InMemoryRegistry(clock), clock,
                b -> b.sequenceStart(random(16)).clockPolicy(ClockPolicy.valueOf(policy))
                        .maxClockWait(Duration.ZERO))) {
            long[][] out = new long[4][500_000];
            int[] counts = new int[out.length];
            Thread[] minters = new Thread[out.length];
            for (int t = 0; t < out.length; t++) {
                long[] mine = out[t];
                int me = t;
                minters[t] = new Thread(() -> {
                    int i = 0;
                    while (!stop.get() && i < mine.length) {
                        if (progress.get() >= gate.get()) {
                            Thread.yield(); // let the clock step first
                            continue;
                        }
                        try {
                            long id = g.nextId();
                            mine[i++] = id;
                            progress.incrementAndGet();
                            if (Layout.SNOWFLAKE.decode(id).timestampMillis()
                                    > clock.currentTimeMillis()) {
                                aheadOfClock.incrementAndGet();
                            }
                        } catch (IdUnavailableException e) {
                            refused.incrementAndGet(); // FAIL: refused while behind
                            progress.incrementAndGet();
                        }
                    }
                    counts[me] = i;
                    done.countDown();
                });
                minters[t].setDaemon(true); // a hang fails by the timeout, not the JVM
                minters[t].start();
            }
            int steps = 0;
            while (steps < 40 && done.getCount() > 0) {
                if (progress.get() >= gate.get()) { // calls were answered since the last step
                    clock.step(ms(steps % 2 == 0 ? -3 : 3));
                    steps++;
                    gate.set(progress.get() + 2_000);
                }
                Nodes.step(g); // renew, or re-join after a clock fault (FAIL)
                Thread.onSpinWait();
            }
            stop.set(true);
            for (Thread m : minters) {
                m.join();
            }
            assertThat(steps).as("the clock stepped while the threads minted").isEqualTo(40);
            long[][] minted = new long[out.length][];
            for (int t = 0; t < out.length; t++) {
                minted[t] = java.util.Arrays.copyOf(out[t], counts[t]);
                IdOracle.assertStrictlyIncreasing(minted[t]);
            }
            IdOracle.assertUnique(minted);
            assertThat(policy.equals("FAIL") ? refused.get() : aheadOfClock.get())
                    .as("the steps back happened while the threads minted").isPositive();
        }
    }

    @Test
    void striped_randomStart_uniqueAndIncreasingPerThread() throws Exception {
        try (IdGenerator g = Nodes.striped(registry, time, 4,
                b -> b.sequenceStart(random(16)))) {
            long[][] out = IdOracle.mintConcurrently(g, 4, 100_000);
            long[] batch = new long[9_000];
            g.nextIds(batch, 0, batch.length);
            IdOracle.assertStrictlyIncreasing(batch);
            IdOracle.assertUnique(out[0], out[1], out[2], out[3], batch);
        }
    }
}

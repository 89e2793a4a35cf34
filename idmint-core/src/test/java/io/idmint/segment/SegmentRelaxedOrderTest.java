package io.idmint.segment;

import static io.idmint.segment.SegmentGeneratorTest.T0;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idmint.IdUnavailableException;
import io.idmint.IdUnavailableException.Reason;
import io.idmint.spi.Range;
import io.idmint.testkit.IdOracle;
import io.idmint.testkit.InMemoryRangeStore;
import io.idmint.testkit.ManualTimeSource;
import io.idmint.testkit.TestTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link SegmentOrder#RELAXED}: threads serve blocks of their own. IDs stay unique and strictly
 * increasing per thread; each range is dense but for at most one block tail per thread.
 */
class SegmentRelaxedOrderTest {

    private final ManualTimeSource time = new ManualTimeSource(T0);
    private final InMemoryRangeStore store = new InMemoryRangeStore();
    private final List<SegmentGenerator> opened = new ArrayList<>();

    @AfterEach
    void close() {
        opened.forEach(SegmentGenerator::close);
    }

    /** Fixed steps of {@code step}; the manual clock stands still, so no fetch times out. */
    private SegmentGenerator relaxed(long step) throws Exception {
        store.create("order", 1, step);
        SegmentGenerator g = Segments.newBuilder().store(store).timeSource(time)
                .order(SegmentOrder.RELAXED).step(step).minStep(step).maxStep(step).build();
        opened.add(g);
        return g;
    }

    @Test
    void next_oneThread_denseAndIncreasingAcrossRanges_likeIssueOrder() throws Exception {
        SegmentGenerator g = relaxed(1_000);
        SegmentSequence orders = g.sequence("order");
        for (long expected = 1; expected <= 20_000; expected++) {
            assertThat(expected % 7 == 0 ? g.next("order") : orders.next()).isEqualTo(expected);
            long inRange = (expected - 1) % 1_000;
            if (inRange == 100) {
                // the block that held the range's 10 % value has started the next fetch
                int index = (int) ((expected - 1) / 1_000);
                await(() -> store.ranges("order").size() > index + 1
                        && nextReady(g, "order"));
            }
        }
        // so only the very first call, with both buffers empty, had to wait
        assertThat(((BufferedSegmentGenerator) g).waits()).isEqualTo(1);
        assertThat(g.stats().get(0).served()).isEqualTo(20_000);
    }

    /** Polls (does not wait for time) until the condition holds; fails after 10 s. */
    private static void await(BooleanSupplier condition) {
        long deadline = TestTime.deadline(Duration.ofSeconds(10));
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("timed out waiting for the prefetch");
            }
            Thread.onSpinWait();
        }
    }

    @Test
    void next_manyThreads_uniqueIncreasingPerThread_rangesDenseButForOneTailPerThread()
            throws Exception {
        int threads = 8;
        int perThread = 60_000;
        SegmentGenerator g = relaxed(1_000);
        SegmentSequence orders = g.sequence("order");
        long[][] out = new long[threads][perThread];
        IdOracle.together(threads, t -> {
            long[] mine = out[t];
            int kind = t % 3;
            int i = 0;
            while (i < mine.length) {
                if (kind == 2 && i % 1_000 == 999 && i + 5 <= mine.length) {
                    orders.next(mine, i, i + 5);   // a batch now and then
                    i += 5;
                } else {
                    mine[i++] = kind == 1 ? g.next("order") : orders.next();
                }
            }
        });
        for (long[] ids : out) {
            IdOracle.assertStrictlyIncreasing(ids);
        }
        IdOracle.assertUnique(out);

        long[] all = Arrays.stream(out).flatMapToLong(Arrays::stream).sorted().toArray();
        List<Range> ranges = store.ranges("order");
        long served = 0;
        // every range but the last two (the one being served and the prefetched one) was used
        // up: its only holes are tails of blocks, at most one per thread, each under a block
        for (Range r : ranges.subList(0, ranges.size() - 2)) {
            int from = lowerBound(all, r.start());
            int to = lowerBound(all, r.end());
            served += to - from;
            assertThat(to - from).as("IDs of %s", r).isGreaterThan(0);
            int holes = 0;
            long expected = r.start();
            for (int i = from; i <= to; i++) {
                long id = i < to ? all[i] : r.end();
                if (id != expected) {
                    holes++;
                    assertThat(id - expected).as("hole before %d in %s", id, r)
                            .isLessThan(r.size() / 16);
                }
                expected = id + 1;
            }
            assertThat(holes).as("holes in %s", r).isLessThanOrEqualTo(threads);
        }
        assertThat(served).as("IDs served from used-up ranges")
                .isGreaterThan((long) threads * perThread / 2);
    }

    private static int lowerBound(long[] sorted, long value) {
        int i = Arrays.binarySearch(sorted, value);
        if (i < 0) {
            return -i - 1;
        }
        while (i > 0 && sorted[i - 1] == value) {
            i--;
        }
        return i;
    }

    @Test
    void next_batchAfterSingles_staysAboveTheThreadsBlock() throws Exception {
        SegmentGenerator g = relaxed(1_000);
        SegmentSequence orders = g.sequence("order");
        List<Long> ids = new ArrayList<>();
        long[] batch = new long[7];
        for (int round = 0; round < 500; round++) {
            for (int i = 0; i < round % 5; i++) {
                ids.add(orders.next());
            }
            orders.next(batch, 0, 7);
            Arrays.stream(batch).forEach(ids::add);
        }
        long[] all = ids.stream().mapToLong(Long::longValue).toArray();
        IdOracle.assertStrictlyIncreasing(all);
        // one thread: nothing is ever dropped, so no hole either
        assertThat(all[all.length - 1]).isEqualTo(all.length);
    }

    @Test
    void close_thenNext_isClosed_evenWithABlockLeft() throws Exception {
        SegmentGenerator g = relaxed(1_000);
        SegmentSequence orders = g.sequence("order");
        for (int i = 0; i < 10; i++) {
            orders.next();   // the block has grown past what was drawn
        }
        g.close();
        assertThatThrownBy(orders::next).isInstanceOf(IdUnavailableException.class)
                .extracting(e -> ((IdUnavailableException) e).reason()).isEqualTo(Reason.CLOSED);
        assertThatThrownBy(() -> g.next("order", new long[3], 0, 3))
                .isInstanceOf(IdUnavailableException.class);
    }

    /** Whether {@code tag}'s next range is in, as {@link SegmentGenerator#stats()} says. */
    private static boolean nextReady(SegmentGenerator g, String tag) {
        return g.stats().stream().anyMatch(s -> s.tag().equals(tag) && s.nextReady());
    }
}

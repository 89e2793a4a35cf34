package io.idmint.segment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import io.idmint.IdUnavailableException;
import io.idmint.IdUnavailableException.Reason;
import io.idmint.spi.Range;
import io.idmint.spi.RangeStore;
import io.idmint.spi.RegistryException;
import io.idmint.spi.TagInfo;
import io.idmint.spi.UnknownTagException;
import io.idmint.spi.support.Names;
import io.idmint.testkit.ForwardingRangeStore;
import io.idmint.testkit.IdOracle;
import io.idmint.testkit.InMemoryRangeStore;
import io.idmint.testkit.ManualTimeSource;
import io.idmint.testkit.TestTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class SegmentGeneratorTest {

    /** 2026-06-01T00:00:00Z. */
    static final long T0 = 1_780_272_000_000L;

    private final ManualTimeSource time = new ManualTimeSource(T0);
    private final InMemoryRangeStore store = new InMemoryRangeStore();
    private final List<SegmentGenerator> opened = new ArrayList<>();

    @AfterEach
    void close() {
        opened.forEach(SegmentGenerator::close);
    }

    private SegmentGenerator build(Segments builder) {
        SegmentGenerator g = builder.store(store).timeSource(time).build();
        opened.add(g);
        return g;
    }

    private static long waits(SegmentGenerator g) {
        return ((BufferedSegmentGenerator) g).waits();
    }

    /** Polls (does not wait for time) until the condition holds; fails after 10 s. */
    private static void await(BooleanSupplier condition, String what) {
        long deadline = TestTime.deadline(Duration.ofSeconds(10));
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("timed out waiting until " + what);
            }
            Thread.onSpinWait();
        }
    }

    /**
     * Draws the whole {@code index}th range of {@code tag}, checking every ID, and waits at the
     * prefetch point until the next range has come: the store is called while this one still
     * has 90 % of its IDs.
     */
    private void drawRange(SegmentGenerator g, String tag, int index) {
        drawRange(g, tag, index, false);
    }

    /** {@link #drawRange}, {@code firstDrawn}: the first ID of range 0 was drawn already. */
    private void drawRange(SegmentGenerator g, String tag, int index, boolean firstDrawn) {
        Range r = store.ranges(tag).get(index);
        long first = firstDrawn && index == 0 ? r.start() + 1 : r.start();
        for (long id = first; id < r.end(); id++) {
            assertThat(g.next(tag)).isEqualTo(id);
            if (id == r.start() + r.size() / 10) {
                awaitPrefetched(g, tag, index);
            }
        }
    }

    @Test
    void next_oneThread_denseAndIncreasingFromTheCreateStart() throws Exception {
        store.create("order", 1, 100);
        SegmentGenerator g = build(Segments.newBuilder().step(100).minStep(100).maxStep(100));
        for (long expected = 1; expected <= 10_000; expected++) {
            assertThat(g.next("order")).isEqualTo(expected);
        }
    }

    @Test
    void next_batch_denseAndIncreasingAcrossRanges() throws Exception {
        store.create("order", 1, 100);
        SegmentGenerator g = build(Segments.newBuilder().step(100).minStep(100).maxStep(100));
        long[] ids = new long[1_000];
        g.next("order", ids, 0, 250);
        g.next("order", ids, 250, 1_000);
        for (int i = 0; i < ids.length; i++) {
            assertThat(ids[i]).isEqualTo(i + 1);
        }
        assertThat(g.next("order")).isEqualTo(1_001);
        assertThatThrownBy(() -> g.next("order", ids, 5, 2_000))
                .isInstanceOf(IndexOutOfBoundsException.class);
    }

    @Test
    void next_concurrentThreads_uniqueAndIncreasingPerThread() throws Exception {
        store.create("order", 1, 100);
        SegmentGenerator g = Segments.newBuilder().store(store).build();
        opened.add(g);
        for (int threads : new int[] {2, 4}) {
            long[][] out = new long[threads][200_000];
            IdOracle.together(threads, t -> {
                for (int i = 0; i < out[t].length; i++) {
                    out[t][i] = g.next("order");
                }
            });
            for (long[] ids : out) {
                IdOracle.assertStrictlyIncreasing(ids);
            }
            IdOracle.assertUnique(out);
        }
    }

    @Test
    void prefetch_callsTheStoreWhileTheRangeStillHasIds_noCallerWaits() throws Exception {
        store.create("order", 1, 100);
        SegmentGenerator g = build(Segments.newBuilder().step(1_000));
        assertThat(g.next("order")).isEqualTo(1);
        for (int i = 0; i < 6; i++) {
            if (i == 0) {
                await(() -> store.ranges("order").size() == 1, "first range");
            }
            drawRange(g, "order", i, true);
        }
        // only the very first call, with both buffers empty, waited
        assertThat(waits(g)).isEqualTo(1);
        assertThat(store.allocations()).isEqualTo(7);
    }

    /** Polls until range {@code index + 1} is in the store and in the generator's buffer. */
    private void awaitPrefetched(SegmentGenerator g, String tag, int index) {
        await(() -> store.ranges(tag).size() > index + 1
                && nextReady(g, tag), "range " + (index + 1)
                + " is fetched");
    }

    @Test
    void step_growsUnderLoad_andShrinksWhenIdle() throws Exception {
        store.create("order", 1, 1_000);
        SegmentGenerator g = build(Segments.newBuilder().step(1_000).minStep(250).maxStep(8_000)
                .targetDuration(Duration.ofMinutes(1)));
        g.next("order");
        drawRange(g, "order", 0, true);
        for (int i = 1; i < 5; i++) {
            drawRange(g, "order", i);   // the clock stands still: every range lasts no time
        }
        assertThat(sizes()).containsExactly(1_000L, 2_000L, 4_000L, 8_000L, 8_000L, 8_000L);
        for (int i = 5; i < 10; i++) {
            time.advance(Duration.ofMinutes(3));   // idle: each range lasts over twice the target
            drawRange(g, "order", i);
        }
        assertThat(sizes()).containsExactly(1_000L, 2_000L, 4_000L, 8_000L, 8_000L, 8_000L,
                4_000L, 2_000L, 1_000L, 500L, 250L);
        time.advance(Duration.ofSeconds(90));      // within [target, 2 x target]: kept
        drawRange(g, "order", 10);
        assertThat(sizes()).as("sizes").hasSize(12).last().isEqualTo(250L);
    }

    private List<Long> sizes() {
        return store.ranges("order").stream().map(Range::size).toList();
    }

    /** Regression: an Error thrown by a store left the tag "fetching" for good. */
    @Test
    void storeThrowsAnError_theNextFetchRetries() throws Exception {
        store.create("order", 1, 100);
        java.util.concurrent.atomic.AtomicBoolean thrown =
                new java.util.concurrent.atomic.AtomicBoolean();
        RangeStore failingOnce = allocatingThrough((tag, size) -> {
            if (thrown.compareAndSet(false, true)) {
                throw new LinkageError("planted: a driver class failed to load");
            }
            return store.allocate(tag, size);
        });
        SegmentGenerator g = Segments.newBuilder().store(failingOnce).timeSource(time)
                .fetchTimeout(Duration.ofSeconds(10)).build();
        opened.add(g);
        CompletableFuture<Long> first = CompletableFuture.supplyAsync(() -> g.next("order"),
                r -> new Thread(r).start());
        await(() -> !g.stats().isEmpty() && g.stats().get(0).fetchFailures() == 1,
                "the planted error is counted as a failed fetch");
        time.advance(Duration.ofMillis(150));   // past the retry interval, on the injected clock
        assertThat(first.get(10, TimeUnit.SECONDS)).isEqualTo(1);
        assertThat(thrown).isTrue();
    }

    @Test
    void storeDown_servesBuffers_thenUnavailable_thenRecovers() throws Exception {
        store.create("order", 1, 100);
        SegmentGenerator g = build(Segments.newBuilder().step(100).minStep(100).maxStep(100)
                .fetchTimeout(Duration.ofSeconds(1)));
        List<Long> issued = new ArrayList<>();
        issued.add(g.next("order"));
        await(() -> store.ranges("order").size() == 1, "first range");
        Range first = store.ranges("order").get(0);
        for (long id = first.start() + 1; id < first.end(); id++) {
            issued.add(g.next("order"));
            if (id == first.start() + 10) {
                awaitPrefetched(g, "order", 0);
                store.setAvailable(false);
            }
        }
        // the prefetched range is still served while the store is down
        for (int i = 0; i < 100; i++) {
            issued.add(g.next("order"));
        }
        assertThat(issued).hasSize(200);
        long callsBefore = store.allocateCalls();
        CompletableFuture<Long> blocked = CompletableFuture.supplyAsync(() -> g.next("order"),
                r -> new Thread(r).start());
        long deadline = TestTime.deadline(Duration.ofSeconds(10));
        while (!blocked.isDone() && System.nanoTime() < deadline) {
            time.advance(Duration.ofMillis(50));   // the caller's timeout runs on this clock
            Thread.onSpinWait();
        }
        assertThatThrownBy(blocked::get).isInstanceOf(ExecutionException.class)
                .cause().isInstanceOf(IdUnavailableException.class)
                .hasMessageContaining("segment tag 'order'")
                .satisfies(e -> {
                    IdUnavailableException u = (IdUnavailableException) e;
                    assertThat(u.reason()).isEqualTo(Reason.RUNWAY_EXHAUSTED);
                    assertThat(u.retryAfter()).isEqualTo(Duration.ofSeconds(1));
                });
        assertThat(store.allocateCalls()).isGreaterThan(callsBefore);

        store.setAvailable(true);
        for (int i = 0; i < 300; i++) {
            issued.add(g.next("order"));
        }
        long[] all = issued.stream().mapToLong(Long::longValue).toArray();
        IdOracle.assertStrictlyIncreasing(all);
        IdOracle.assertUnique(all);
    }

    @Test
    void stats_countServedRangesAndBuffers() throws Exception {
        store.create("order", 1, 100);
        store.create("user", 1, 100);
        SegmentGenerator g = build(Segments.newBuilder().step(100).minStep(100).maxStep(100));
        assertThat(g.stats()).isEmpty();
        g.next("user");
        for (int i = 1; i <= 101; i++) {
            assertThat(g.next("order")).isEqualTo(i);
            if (i == 11) {
                awaitPrefetched(g, "order", 0);
            }
        }
        List<SegmentStats> stats = g.stats();
        assertThat(stats).extracting(SegmentStats::tag).containsExactly("order", "user");
        SegmentStats order = stats.get(0);
        assertThat(order.served()).isEqualTo(101);
        assertThat(order.ranges()).isEqualTo(2);
        assertThat(order.remaining()).isEqualTo(99);
        assertThat(order.step()).isEqualTo(100);
        assertThat(order.fetchFailures()).isZero();
        assertThat(stats.get(1).served()).isEqualTo(1);
    }

    @Test
    void firstRange_takesTheTagsOwnStep_thenAdaptsFromIt() throws Exception {
        store.create("slow", 1, 30);
        SegmentGenerator g = build(Segments.newBuilder().step(100).minStep(100).maxStep(400));
        g.next("slow");
        drawRange(g, "slow", 0, true);
        drawRange(g, "slow", 1);
        assertThat(store.ranges("slow")).extracting(Range::size).containsExactly(30L, 60L, 120L);
        for (int i = 2; i < 8; i++) {
            time.advance(Duration.ofMinutes(3));   // idle: shrinks back to the tag's own step
            drawRange(g, "slow", i);
        }
        assertThat(store.ranges("slow").get(8).size()).isEqualTo(30);
    }

    @Test
    void tags_areIndependent() throws Exception {
        store.create("a", 1, 100);
        store.create("b", 1_000_000, 100);
        SegmentGenerator g = build(Segments.newBuilder().step(100).minStep(100).maxStep(100));
        for (int i = 0; i < 1_000; i++) {
            assertThat(g.next("a")).isEqualTo(1 + i);
            assertThat(g.next("b")).isEqualTo(1_000_000 + i);
            if (i % 2 == 0) {
                assertThat(g.next("a")).isEqualTo(1 + ++i);
                assertThat(g.next("b")).isEqualTo(1_000_000 + i);
            }
        }
    }

    @Test
    void next_badTagName_namesTheTag() {
        SegmentGenerator g = build(Segments.newBuilder());
        for (String bad : new String[] {"", "a b", "x/y", "é", "a".repeat(129), "a?b", ".."}) {
            assertThatThrownBy(() -> g.next(bad)).isInstanceOf(IllegalArgumentException.class)
                    .isNotInstanceOf(UnknownTagException.class)
                    .hasMessageContaining("segment tag '" + bad + "'");
        }
        assertThatThrownBy(() -> g.next(null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("segment tag 'null'");
    }

    @Test
    void next_unknownTag_isUnknownTag_untilCreated() throws Exception {
        SegmentGenerator g = build(Segments.newBuilder());
        assertThatThrownBy(() -> g.next("ghost")).isInstanceOf(UnknownTagException.class)
                .hasMessageContaining("segment tag 'ghost' does not exist")
                .satisfies(e -> assertThat(((UnknownTagException) e).tag()).isEqualTo("ghost"));
        store.create("ghost", 42, 100);
        assertThat(g.next("ghost")).isEqualTo(42);
    }

    @Test
    void next_aNameTheStoreCannotHold_failsAtOnceNamingIt_andIsNotRetried() throws Exception {
        // a store whose table holds short names only, as idmint_segment holds 64 characters
        RangeStore shortNames = allocatingThrough((tag, size) -> {
            if (tag.length() > 5) {
                throw new IllegalArgumentException("segment tag '" + tag + "' has "
                        + tag.length() + " characters; this store holds at most 5");
            }
            return store.allocate(tag, size);
        });
        SegmentGenerator g = Segments.newBuilder().store(shortNames).timeSource(time).build();
        opened.add(g);
        store.create("order:2024", 1, 10);
        store.create("ok", 1, 10);
        CompletableFuture<Long> call = CompletableFuture.supplyAsync(() -> g.next("order:2024"));
        assertThatThrownBy(() -> call.get(10, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class).cause()
                .isExactlyInstanceOf(IllegalArgumentException.class)
                .hasMessage("segment tag 'order:2024' has 10 characters; this store holds at "
                        + "most 5");
        assertThat(g.next("ok")).isEqualTo(1);
        assertThat(g.stats()).extracting(SegmentStats::tag).containsExactly("ok");
    }

    @Test
    void next_unknownTag_withAutoCreate_startsAtOne() throws Exception {
        SegmentGenerator g = build(Segments.newBuilder().autoCreate(true));
        assertThat(g.next("fresh")).isEqualTo(1);
        assertThat(g.next("fresh")).isEqualTo(2);
        assertThat(store.tags()).extracting(TagInfo::tag, TagInfo::step)
                .containsExactly(tuple("fresh", 1_000L));
    }

    @Test
    void close_thenNext_isClosed() throws Exception {
        store.create("order", 1, 100);
        SegmentGenerator g = build(Segments.newBuilder());
        g.next("order");
        g.close();
        assertThatThrownBy(() -> g.next("order")).isInstanceOf(IdUnavailableException.class)
                .extracting(e -> ((IdUnavailableException) e).reason()).isEqualTo(Reason.CLOSED);
        assertThatThrownBy(() -> g.next("other")).isInstanceOf(IdUnavailableException.class)
                .extracting(e -> ((IdUnavailableException) e).reason()).isEqualTo(Reason.CLOSED);
    }

    @Test
    void sequence_sharesTheTagsBuffersWithNext_denseAcrossRanges() throws Exception {
        store.create("order", 1, 100);
        SegmentGenerator g = build(Segments.newBuilder().step(100).minStep(100).maxStep(100));
        SegmentSequence orders = g.sequence("order");
        assertThat(orders.tag()).isEqualTo("order");
        assertThat(g.sequence("order")).isSameAs(orders);
        long[] ids = new long[150];
        long expected = 1;
        for (int i = 0; i < 300; i++) {
            assertThat(i % 3 == 0 ? g.next("order") : orders.next()).isEqualTo(expected++);
        }
        orders.next(ids, 0, 150);
        for (long id : ids) {
            assertThat(id).isEqualTo(expected++);
        }
        g.next("order", ids, 10, 20);
        assertThat(ids[10]).isEqualTo(expected);
        assertThat(orders.next()).isEqualTo(expected + 10);
        assertThat(g.stats()).singleElement().extracting(SegmentStats::served).isEqualTo(461L);
        assertThatThrownBy(() -> orders.next(ids, 100, 151))
                .isInstanceOf(IndexOutOfBoundsException.class);
    }

    @Test
    void sequence_badTagName_failsAtOnce() {
        SegmentGenerator g = build(Segments.newBuilder());
        for (String bad : new String[] {"", "a b", "a".repeat(129), "a/b", "..", null}) {
            assertThatThrownBy(() -> g.sequence(bad)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("segment tag '" + bad + "' must be " + Names.TAG_RULE);
        }
        assertThat(g.stats()).isEmpty();
    }

    @Test
    void sequence_unknownTag_failsOnEachCall_untilCreated_thenOneBufferForTheTag()
            throws Exception {
        SegmentGenerator g = build(Segments.newBuilder());
        SegmentSequence ghost = g.sequence("ghost");
        for (int i = 0; i < 2; i++) {
            assertThatThrownBy(ghost::next).isInstanceOf(UnknownTagException.class)
                    .hasMessageContaining("segment tag 'ghost' does not exist");
        }
        assertThatThrownBy(() -> g.next("ghost")).isInstanceOf(UnknownTagException.class);
        store.create("ghost", 42, 100);
        assertThat(ghost.next()).isEqualTo(42);
        assertThat(g.next("ghost")).isEqualTo(43);   // the handle's buffer, not a second one
        assertThat(ghost.next()).isEqualTo(44);
        assertThat(store.ranges("ghost")).hasSize(1);
        assertThat(g.stats()).extracting(SegmentStats::tag, SegmentStats::served)
                .containsExactly(tuple("ghost", 3L));
    }

    @Test
    void sequence_closedGenerator_isClosed() throws Exception {
        store.create("order", 1, 100);
        SegmentGenerator g = build(Segments.newBuilder());
        SegmentSequence orders = g.sequence("order");
        orders.next();
        g.close();
        assertThatThrownBy(orders::next).isInstanceOf(IdUnavailableException.class)
                .extracting(e -> ((IdUnavailableException) e).reason()).isEqualTo(Reason.CLOSED);
        assertThatThrownBy(() -> g.sequence("order")).isInstanceOf(IdUnavailableException.class)
                .extracting(e -> ((IdUnavailableException) e).reason()).isEqualTo(Reason.CLOSED);
    }

    @Test
    void builder_validatesAtOnce_andRejectsSettingTwice() {
        assertThatThrownBy(() -> Segments.newBuilder().step(0))
                .hasMessageContaining("segment.step must be between 1 and 2^40, got 0");
        assertThatThrownBy(() -> Segments.newBuilder().fetchTimeout(Duration.ZERO))
                .hasMessageContaining("segment.fetch-timeout must be positive");
        // Regression: 100000000h overflowed into "internal error" when turned into nanos.
        assertThatThrownBy(() -> Segments.newBuilder().targetDuration(Duration.ofHours(
                100_000_000))).hasMessage("segment.target-duration must be at most 1h, got "
                        + "100000000h");
        assertThatThrownBy(() -> Segments.newBuilder().fetchTimeout(Duration.ofMinutes(2)))
                .hasMessage("segment.fetch-timeout must be at most 1m, got 2m");
        assertThatThrownBy(() -> Segments.newBuilder().step(10).step(10))
                .isInstanceOf(IllegalStateException.class).hasMessage("step was already set");
        assertThatThrownBy(() -> Segments.newBuilder().order(SegmentOrder.RELAXED)
                .order(SegmentOrder.ISSUE)).isInstanceOf(IllegalStateException.class)
                .hasMessage("order was already set");
        assertThatThrownBy(() -> Segments.newBuilder().build())
                .hasMessageContaining("no range store");
        assertThatThrownBy(() -> Segments.newBuilder().store(store).minStep(500).maxStep(100)
                .build()).hasMessageContaining(
                        "segment.min-step (500) must not exceed segment.max-step (100)");
        assertThatThrownBy(() -> Segments.newBuilder().store(store).step(50).minStep(100).build())
                .hasMessageContaining("segment.step (50) must be between");
    }

    /** Whether {@code tag}'s next range is in, as {@link SegmentGenerator#stats()} says. */
    private static boolean nextReady(SegmentGenerator g, String tag) {
        return g.stats().stream().anyMatch(s -> s.tag().equals(tag) && s.nextReady());
    }

    /** {@code store} with {@code allocation} in place of its own allocate. */
    private RangeStore allocatingThrough(Allocation allocation) {
        return new ForwardingRangeStore(store) {
            @Override
            public Range allocate(String tag, long size) throws RegistryException {
                return allocation.allocate(tag, size);
            }
        };
    }

    /** The calls of {@link #allocatingThrough}: an allocation, in place of the store's. */
    interface Allocation {
        Range allocate(String tag, long size) throws RegistryException;
    }
}

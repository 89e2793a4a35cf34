package io.idmint.server.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.idmint.GeneratorStatus;
import io.idmint.IdGenerator;
import io.idmint.IdUnavailableException;
import io.idmint.IdUnavailableException.Reason;
import io.idmint.Layout;
import io.idmint.testkit.ManualTimeSource;
import io.idmint.testkit.Poll;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The event loop's mint step: what the clock allows at once, the rest a tick later, with the
 * loop never waiting. The "loop" is one thread, the waits run on another, as on Vert.x; the
 * generator is a fake that allows {@link #PER_TICK} IDs a millisecond of a manual clock.
 */
class LoopMintTest {

    private static final int PER_TICK = 100;

    private final ManualTimeSource time = new ManualTimeSource(1_780_000_000_000L);
    private final ExecutorService loop = Executors.newSingleThreadExecutor(r ->
            new Thread(r, "loop"));
    private final ExecutorService workers = Executors.newCachedThreadPool();
    private final List<String> completedOn = new CopyOnWriteArrayList<>();

    /** As HTTP's: the step on a worker, its completion back on the loop. */
    private final Waits onWorkers = new Waits() {
        @Override
        public <T> CompletionStage<T> run(Supplier<T> step) {
            return CompletableFuture.supplyAsync(step, workers).thenApplyAsync(v -> v, loop);
        }
    };

    @AfterEach
    void stop() throws Exception {
        workers.shutdownNow();
        loop.shutdownNow();
        assertThat(loop.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void mint_whatTheClockAllows_isDoneAtOnce_withTheLoopsReusedBatch() throws Exception {
        LoopMint mint = new LoopMint(service(), time, onWorkers);

        CompletionStage<IdBatch> first = onLoop(() -> mint.mint(60));
        CompletableFuture<IdBatch> done = first.toCompletableFuture();

        assertThat(done).isDone();
        assertThat(done.join()).isSameAs(mint);
        assertThat(mint.count()).isEqualTo(60);
        assertThat(onLoop(() -> mint.mint(40))).isSameAs(first);
        assertThat(mint.ids()[39]).isEqualTo(tickId(0, 99));
    }

    @Test
    void mint_pastATick_completesOnTheLoopTicksLater_inArrivalOrder_everyIdOnce()
            throws Exception {
        LoopMint mint = new LoopMint(service(), time, onWorkers);

        CompletableFuture<IdBatch> a = onLoop(() -> mint.mint(150)).toCompletableFuture();
        CompletableFuture<IdBatch> b = onLoop(() -> mint.mint(120)).toCompletableFuture();
        a.thenRun(() -> completedOn.add("a on " + Thread.currentThread().getName()));
        CompletableFuture<Void> bSeen = b.thenRun(() -> completedOn.add("b on "
                + Thread.currentThread().getName()));
        assertThat(a).isNotDone();
        assertThat(b).isNotDone();

        time.advance(Duration.ofMillis(1));
        Poll.until(Duration.ofSeconds(10), "the first batch whole", a::isDone);
        assertThat(b).isNotDone();
        time.advance(Duration.ofMillis(1));
        Poll.until(Duration.ofSeconds(10), "the second batch whole", b::isDone);

        bSeen.get(10, TimeUnit.SECONDS);
        long[] first = a.join().ids();
        long[] second = b.join().ids();
        assertThat(first).hasSize(150).isSorted().doesNotHaveDuplicates();
        assertThat(second).hasSize(120).isSorted().doesNotHaveDuplicates();
        assertThat(first[149]).isLessThan(second[0]);
        assertThat(second[119]).isEqualTo(tickId(2, 69));
        assertThat(completedOn).containsExactly("a on loop", "b on loop");
    }

    @Test
    void mint_whenTheWaitFails_endsTheShortRequestClosed_andTheLoopMintsOn() throws Exception {
        Waits closing = new Waits() {
            @Override
            public <T> CompletionStage<T> run(Supplier<T> step) {
                return CompletableFuture.failedFuture(new IllegalStateException("closed"));
            }
        };
        LoopMint mint = new LoopMint(service(), time, closing);

        CompletableFuture<IdBatch> short1 = onLoop(() -> mint.mint(150)).toCompletableFuture();

        assertThat(short1).isCompletedExceptionally();
        assertThat(short1.handle((v, e) -> e).join())
                .isInstanceOfSatisfying(IdUnavailableException.class,
                        e -> assertThat(e.reason()).isEqualTo(Reason.CLOSED));
        time.advance(Duration.ofMillis(1));
        assertThat(onLoop(() -> mint.mint(10)).toCompletableFuture()).isDone();
    }

    private static long tickId(int tick, int seq) {
        return (tick + 1) * 1000L + seq;
    }

    private <T> T onLoop(Supplier<T> call) throws Exception {
        return loop.submit(call::get).get(10, TimeUnit.SECONDS);
    }

    private IdService service() {
        return new IdService(new TickGenerator(), 10_000, n -> { }, e -> { });
    }

    /** Allows {@link #PER_TICK} increasing IDs per millisecond of {@link #time}; never waits. */
    private final class TickGenerator implements IdGenerator {
        private final long start = time.currentTimeMillis();
        private long tick = -1;
        private int used;

        @Override
        public synchronized int nextIdsNow(long[] ids, int from, int to) {
            long now = time.currentTimeMillis() - start;
            if (now != tick) {
                tick = now;
                used = 0;
            }
            int k = from;
            while (k < to && used < PER_TICK) {
                ids[k++] = tickId((int) tick, used++);
            }
            return k;
        }

        @Override
        public void nextIds(long[] ids, int from, int to) {
            throw new UnsupportedOperationException("the loop never waits");
        }

        @Override
        public long nextId() {
            throw new UnsupportedOperationException();
        }

        @Override
        public long nextId(long shardKey) {
            throw new UnsupportedOperationException();
        }

        @Override
        public Layout layout() {
            return Layout.SNOWFLAKE;
        }

        @Override
        public GeneratorStatus status() {
            throw new UnsupportedOperationException();
        }

        @Override
        public void close() {
        }
    }
}

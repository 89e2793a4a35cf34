package io.idmint.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The buffer alone: claims across batch ends, waits, the timeout and close. */
class PrefetchBufferTest {

    private static final long SECOND = TimeUnit.SECONDS.toNanos(1);

    @Test
    void take_fourThreadsWhileBatchesArrive_everyIdOnceInAppendOrderPerThread()
            throws Exception {
        AtomicInteger wakes = new AtomicInteger();
        PrefetchBuffer buffer = new PrefetchBuffer(wakes::incrementAndGet);
        int batches = 2_000;
        int size = 100;
        int total = batches * size;
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<List<Long>>> takers = new ArrayList<>();
            AtomicInteger left = new AtomicInteger(total);
            for (int t = 0; t < 4; t++) {
                takers.add(pool.submit(() -> {
                    List<Long> got = new ArrayList<>();
                    while (left.getAndDecrement() > 0) {
                        got.add(buffer.take(10 * SECOND,
                                () -> new IllegalStateException("timeout")));
                    }
                    return got;
                }));
            }
            for (int b = 0; b < batches; b++) {
                long[] ids = new long[size + 7];
                for (int i = 0; i < size; i++) {
                    ids[i] = (long) b * size + i;
                }
                buffer.append(ids, size);
            }
            boolean[] seen = new boolean[total];
            for (Future<List<Long>> f : takers) {
                List<Long> got = f.get(30, TimeUnit.SECONDS);
                for (int i = 0; i < got.size(); i++) {
                    int id = got.get(i).intValue();
                    assertThat(seen[id]).as("ID %d taken twice", id).isFalse();
                    seen[id] = true;
                    if (i > 0) {
                        assertThat(got.get(i)).isGreaterThan(got.get(i - 1));
                    }
                }
            }
            for (int i = 0; i < total; i++) {
                assertThat(seen[i]).as("ID %d taken", i).isTrue();
            }
            assertThat(buffer.buffered()).isZero();
            assertThat(buffer.takenTotal()).isEqualTo(total);
            assertThat(wakes.get()).as("the refill woken at batch ends").isGreaterThan(0);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void buffered_whileATakerMovesTheHead_neverBelowWhatIsLeft() throws Exception {
        // The refill fetches only while buffered() is below its target: a read below what is
        // really left would make it fetch one batch too many. Batches of 4 move the head often.
        PrefetchBuffer buffer = new PrefetchBuffer(() -> { });
        int total = 2_000_000;
        for (int b = 0; b < total / 4; b++) {
            buffer.append(new long[] {4L * b, 4L * b + 1, 4L * b + 2, 4L * b + 3}, 4);
        }
        AtomicLong done = new AtomicLong();
        CompletableFuture<Void> taker = CompletableFuture.runAsync(() -> {
            for (int i = 0; i < total; i++) {
                buffer.take(SECOND, () -> new IllegalStateException("timeout"));
                done.incrementAndGet();
            }
        });
        while (!taker.isDone()) {
            long buffered = buffer.buffered();
            // At most one take is claimed and not yet counted in done.
            long atLeft = total - done.get() - 1;
            assertThat(buffered).as("buffered() with %d taken", done.get())
                    .isGreaterThanOrEqualTo(atLeft);
        }
        taker.get();
        assertThat(buffer.buffered()).isZero();
    }

    @Test
    void take_nothingArrives_throwsTheTimeoutAfterIt() {
        PrefetchBuffer buffer = new PrefetchBuffer(() -> { });
        long start = System.nanoTime();
        assertThatThrownBy(() -> buffer.take(TimeUnit.MILLISECONDS.toNanos(200),
                () -> new IllegalStateException("none in time")))
                .hasMessage("none in time");
        assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(
                TimeUnit.MILLISECONDS.toNanos(200));
    }

    @Test
    void take_waiting_getsABatchAppendedLater() throws Exception {
        PrefetchBuffer buffer = new PrefetchBuffer(() -> { });
        CompletableFuture<Long> waiting = CompletableFuture.supplyAsync(
                () -> buffer.take(60 * SECOND, () -> new IllegalStateException("timeout")));
        untilWaiting(buffer);
        buffer.append(new long[] {42, 43}, 2);
        assertThat(waiting.get(10, TimeUnit.SECONDS)).isEqualTo(42);
        assertThat(buffer.buffered()).isEqualTo(1);
    }

    @Test
    void close_wakesAWaitingTaker() throws Exception {
        PrefetchBuffer buffer = new PrefetchBuffer(() -> { });
        CompletableFuture<Long> waiting = CompletableFuture.supplyAsync(
                () -> buffer.take(600 * SECOND, () -> new IllegalStateException("timeout")));
        untilWaiting(buffer);
        buffer.close();
        assertThatThrownBy(() -> waiting.get(10, TimeUnit.SECONDS))
                .hasCauseInstanceOf(IllegalStateException.class);
    }

    /** Returns once a taker waits in {@code buffer}: only a notify can wake it then. */
    static void untilWaiting(PrefetchBuffer buffer) {
        while (buffer.waiters.get() == 0) {
            Thread.onSpinWait();
        }
    }
}

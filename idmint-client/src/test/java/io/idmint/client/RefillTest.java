package io.idmint.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The refill thread when its own step throws: it backs off after a RuntimeException and, when
 * it dies of an Error, takers fail with it instead of waiting out their deadline.
 */
class RefillTest {

    private static final long SECOND = TimeUnit.SECONDS.toNanos(1);

    private final ManagedChannel channel =
            ManagedChannelBuilder.forTarget("127.0.0.1:1").usePlaintext().build();

    @AfterEach
    void close() throws InterruptedException {
        channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }

    /** A refill whose endpoint choice runs {@code fault} (which throws) once it is built. */
    private Refill refill(PrefetchBuffer buffer, Runnable fault) {
        AtomicBoolean built = new AtomicBoolean();
        Endpoints endpoints = new Endpoints(List.of(new Endpoint("127.0.0.1:1", channel)), () -> {
            if (built.get()) {
                fault.run();
            }
            return System.nanoTime();
        });
        built.set(true);
        return new Refill(endpoints, buffer, new Demand(1000, System.nanoTime()), SECOND);
    }

    @Test
    void run_stepThrowsARuntimeException_backsOffBetweenTries() throws Exception {
        List<Long> tries = new CopyOnWriteArrayList<>();
        CountDownLatch fourTries = new CountDownLatch(4);
        Refill refill = refill(new PrefetchBuffer(() -> { }), () -> {
            tries.add(System.nanoTime());
            fourTries.countDown();
            throw new IllegalStateException("scripted fault");
        });
        refill.wake();
        try {
            assertThat(fourTries.await(30, TimeUnit.SECONDS)).isTrue();
        } finally {
            refill.close(5 * SECOND);
        }
        // The first park may return at once (the start's wake left a permit); then the
        // endpoints' backoff: 500 ms after the second failure, 1 s after the third.
        for (int i = 2; i < 4; i++) {
            assertThat(tries.get(i) - tries.get(i - 1)).as("ns from try %d to the next", i - 1)
                    .isGreaterThanOrEqualTo(Endpoints.backoffNanos(i));
        }
    }

    @Test
    void run_stepThrowsAnError_failsWaitingAndLaterTakers() throws Exception {
        PrefetchBuffer buffer = new PrefetchBuffer(() -> { });
        Refill refill = refill(buffer, () -> {
            throw new InternalError("scripted error");
        });
        try {
            CompletableFuture<Long> waiting = CompletableFuture.supplyAsync(() -> buffer.take(
                    600 * SECOND, () -> new IllegalStateException("timeout")));
            PrefetchBufferTest.untilWaiting(buffer);
            refill.wake();
            assertThatThrownBy(() -> waiting.get(30, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(IllegalStateException.class)
                    .hasRootCauseInstanceOf(InternalError.class)
                    .hasMessageContaining("the IdClient's refill thread died");
            assertThatThrownBy(() -> buffer.take(600 * SECOND,
                    () -> new IllegalStateException("timeout")))
                    .isInstanceOf(IllegalStateException.class)
                    .hasRootCauseMessage("scripted error");
        } finally {
            refill.close(5 * SECOND);
        }
    }
}

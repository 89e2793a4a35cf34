package io.idmint;

import static io.idmint.Nodes.T0;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.idmint.IdUnavailableException.Reason;
import io.idmint.spi.Claim;
import io.idmint.spi.RegistryException;
import io.idmint.testkit.ForwardingRegistry;
import io.idmint.testkit.InMemoryRegistry;
import io.idmint.testkit.ManualTimeSource;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class HwmLeaseTest {

    /** A registry whose extend hangs until released, like a store that stopped answering. */
    private static final class HangingRegistry extends ForwardingRegistry {
        final CountDownLatch extendEntered = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        volatile boolean hang;

        HangingRegistry(InMemoryRegistry inner) {
            super(inner);
        }

        @Override
        public long extend(Claim claim, long untilMillis) throws RegistryException {
            if (hang) {
                extendEntered.countDown();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                throw new RegistryException(RegistryException.Kind.UNAVAILABLE, "timed out");
            }
            return super.extend(claim, untilMillis);
        }
    }

    /** A registry whose extend refuses at once while down, as etcd refusing connections. */
    private static final class RefusingRegistry extends ForwardingRegistry {
        final AtomicInteger extendCalls = new AtomicInteger();
        volatile boolean down;

        RefusingRegistry(InMemoryRegistry inner) {
            super(inner);
        }

        @Override
        public long extend(Claim claim, long untilMillis) throws RegistryException {
            extendCalls.incrementAndGet();
            if (down) {
                throw new RegistryException(RegistryException.Kind.UNAVAILABLE,
                        "connection refused");
            }
            return super.extend(claim, untilMillis);
        }
    }

    /**
     * Regression: past the runway every refused call woke the maintenance loop, which renewed
     * again at once, so a store refusing at once was retried at the request rate.
     */
    @Test
    void storeRefusingAtOnce_pastTheRunway_isRetriedOncePerBackoff_underAFloodOfCalls() {
        ManualTimeSource clock = new ManualTimeSource(T0);
        RefusingRegistry registry = new RefusingRegistry(new InMemoryRegistry(clock));
        // A 10 s period (real time for the loop's own wait): the flood below gets no periodic step.
        IdGenerator g = Snowflake.newBuilder().registry(registry).timeSource(clock)
                .reservationWindow(Duration.ofSeconds(30)).keepaliveInterval(Duration.ofSeconds(10))
                .leaseTtl(Duration.ofMinutes(10)).storeTimeout(Duration.ofMinutes(10)).build();
        try {
            assertThat(g.nextId()).isPositive();
            registry.down = true;
            clock.advance(Duration.ofSeconds(31)); // past the runway, well within the lease budget
            assertThatThrownBy(g::nextId).isInstanceOf(IdUnavailableException.class);
            assertTimeoutPreemptively(Duration.ofSeconds(10), () -> {
                while (g.status().state() != LeaseState.DEGRADED) { // the first renewal failed
                    Thread.onSpinWait();
                }
            });
            int before = registry.extendCalls.get();
            int simulatedMillis = 2000;
            for (int ms = 0; ms < simulatedMillis; ms++) {
                clock.advance(Duration.ofMillis(1));
                for (int call = 0; call < 5; call++) {
                    assertThatThrownBy(g::nextId).isInstanceOf(IdUnavailableException.class)
                            .extracting(e -> ((IdUnavailableException) e).reason())
                            .isEqualTo(Reason.RUNWAY_EXHAUSTED);
                }
            }
            int attempts = registry.extendCalls.get() - before;
            long perBackoff = simulatedMillis / HwmLease.RETRY_BACKOFF_MILLIS;
            assertThat(attempts).as("renewals during %d ms of refused calls", simulatedMillis)
                    .isLessThanOrEqualTo((int) perBackoff + 1); // + 1: the loop's own period
            assertThat(g.status().state()).isEqualTo(LeaseState.DEGRADED);

            registry.down = false;
            clock.advance(Duration.ofMillis(HwmLease.RETRY_BACKOFF_MILLIS));
            assertTimeoutPreemptively(Duration.ofSeconds(10), () -> {
                for (;;) { // each refused call wakes the loop; the first renewal succeeds
                    try {
                        assertThat(g.nextId()).isPositive();
                        return;
                    } catch (IdUnavailableException e) {
                        assertThat(e.reason()).isEqualTo(Reason.RUNWAY_EXHAUSTED);
                    }
                }
            });
            assertThat(g.status().state()).isEqualTo(LeaseState.ACTIVE);
        } finally {
            g.close();
        }
    }

    /** Regression: a caller past the runway was blocked for as long as a registry call hung. */
    @Test
    void callerPastTheRunway_isNotBlockedByAHangingRegistryCall() throws Exception {
        ManualTimeSource clock = new ManualTimeSource(T0);
        HangingRegistry registry = new HangingRegistry(new InMemoryRegistry(clock));
        IdGenerator g = Snowflake.newBuilder().registry(registry).timeSource(clock)
                .keepaliveInterval(Duration.ofMillis(50)).leaseTtl(Duration.ofSeconds(30)).build();
        try {
            assertThat(g.nextId()).isPositive();
            registry.hang = true;
            assertThat(registry.extendEntered.await(10, TimeUnit.SECONDS))
                    .as("the maintenance thread is inside extend").isTrue();
            clock.advance(Duration.ofSeconds(11));
            CompletableFuture<Long> call = CompletableFuture.supplyAsync(g::nextId);
            assertThatThrownBy(() -> call.get(5, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class)
                    .cause().isInstanceOf(IdUnavailableException.class)
                    .extracting(e -> ((IdUnavailableException) e).reason())
                    .isEqualTo(Reason.RUNWAY_EXHAUSTED);
        } finally {
            registry.release.countDown();
            g.close();
        }
    }

    @Test
    void close_endsEveryMaintenanceLoop_withoutInterrupting() throws Exception {
        ManualTimeSource clock = new ManualTimeSource(T0);
        List<Thread> loops = new CopyOnWriteArrayList<>();
        List<Boolean> interrupted = new CopyOnWriteArrayList<>();
        Executor threads = task -> {
            Thread t = new Thread(() -> {
                task.run();
                // An interrupt ending the loop leaves the flag set (the loop restores it).
                interrupted.add(Thread.currentThread().isInterrupted());
            }, "test-lease-loop");
            loops.add(t);
            t.start();
        };
        IdGenerator g = Snowflake.newBuilder().registry(new InMemoryRegistry(clock))
                .timeSource(clock).workers(2).maintenance(threads).build();
        assertThat(g.nextId()).isPositive();
        assertThat(loops).hasSize(2);
        g.close();
        for (Thread t : loops) {
            t.join(10_000);
            assertThat(t.isAlive()).as("loop still running after close").isFalse();
        }
        assertThat(interrupted).as("each loop's interrupt flag when it ended")
                .containsExactly(false, false);
        assertThat(g.status().state()).isEqualTo(LeaseState.RELEASED);
    }

    @Test
    void loopStartedAfterClose_returnsAtOnce_andTouchesNothing() {
        ManualTimeSource clock = new ManualTimeSource(T0);
        InMemoryRegistry registry = new InMemoryRegistry(clock);
        List<Runnable> loops = new ArrayList<>();
        IdGenerator g = Snowflake.newBuilder().registry(registry).timeSource(clock)
                .maintenance(loops::add).build();
        g.close();
        assertThat(loops).hasSize(1);
        assertTimeoutPreemptively(Duration.ofSeconds(10), () -> loops.get(0).run());
        assertThat(g.status().state()).isEqualTo(LeaseState.RELEASED);
        assertThatThrownBy(g::nextId).isInstanceOf(IdUnavailableException.class)
                .extracting(e -> ((IdUnavailableException) e).reason()).isEqualTo(Reason.CLOSED);
    }
}

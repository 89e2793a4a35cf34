package io.idmint;

import static io.idmint.Nodes.T0;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idmint.IdUnavailableException.Reason;
import io.idmint.spi.Claim;
import io.idmint.spi.ClaimRequest;
import io.idmint.spi.RegistryException;
import io.idmint.spi.WorkerRecord;
import io.idmint.spi.WorkerRegistry;
import io.idmint.testkit.InMemoryRegistry;
import io.idmint.testkit.ManualTimeSource;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class HwmLeaseTest {

    /** A registry whose extend hangs until released, like a store that stopped answering. */
    private static final class HangingRegistry implements WorkerRegistry {
        final InMemoryRegistry inner;
        final CountDownLatch extendEntered = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        volatile boolean hang;

        HangingRegistry(InMemoryRegistry inner) {
            this.inner = inner;
        }

        @Override
        public Claim claim(ClaimRequest request) throws RegistryException {
            return inner.claim(request);
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
            return inner.extend(claim, untilMillis);
        }

        @Override
        public void release(Claim claim, long finalHwmMillis) throws RegistryException {
            inner.release(claim, finalHwmMillis);
        }

        @Override
        public List<WorkerRecord> list(String namespace) throws RegistryException {
            return inner.list(namespace);
        }

        @Override
        public void close() {
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
}

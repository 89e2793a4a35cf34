package io.idmint.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.netty.NettyChannelBuilder;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Which endpoint to ask, on a manual clock: stickiness, retry-after, backoff. */
class EndpointsTest {

    private long now = 1_000;
    private final List<Endpoint> list = List.of(endpoint("a:1"), endpoint("b:1"),
            endpoint("c:1"));
    private final Endpoints endpoints = new Endpoints(list, () -> now);

    private static Endpoint endpoint(String target) {
        ManagedChannel channel = NettyChannelBuilder.forTarget(target).usePlaintext().build();
        return new Endpoint(target, channel);
    }

    @AfterEach
    void shutdown() {
        list.forEach(e -> e.channel.shutdownNow());
    }

    private static Metadata retryAfter(String seconds) {
        Metadata m = new Metadata();
        m.put(Endpoints.RETRY_AFTER, seconds);
        return m;
    }

    @Test
    void pick_whileItAnswers_staysOnTheFirst() {
        for (int i = 0; i < 5; i++) {
            Endpoint e = endpoints.pick();
            assertThat(e.target).isEqualTo("a:1");
            endpoints.succeeded(e);
        }
        assertThat(endpoints.failovers()).isZero();
    }

    @Test
    void failed_withRetryAfter_notAskedBeforeIt() {
        Endpoint a = endpoints.pick();
        endpoints.failed(a, Status.UNAVAILABLE.withDescription("not ready"), retryAfter("3"));
        assertThat(endpoints.pick().target).isEqualTo("b:1");
        endpoints.failed(list.get(1), Status.UNAVAILABLE, null);
        endpoints.failed(list.get(2), Status.UNAVAILABLE, null);
        assertThat(endpoints.pick()).as("all three avoided").isNull();
        assertThat(endpoints.untilNext()).isEqualTo(Endpoints.FIRST_BACKOFF_NANOS);
        now += Endpoints.FIRST_BACKOFF_NANOS;
        // b and c are due again, a not before 3 s: b is next after c in order... from c.
        assertThat(endpoints.pick().target).isIn("b:1", "c:1");
        now += TimeUnit.SECONDS.toNanos(3) - Endpoints.FIRST_BACKOFF_NANOS - 1;
        endpoints.failed(list.get(1), Status.UNAVAILABLE, null);
        endpoints.failed(list.get(2), Status.UNAVAILABLE, null);
        assertThat(endpoints.pick()).as("a 1 ns before its retry-after").isNull();
        now += 1;
        assertThat(endpoints.pick().target).isEqualTo("a:1");
        assertThat(endpoints.unavailable("no ID", Duration.ofSeconds(5)).failures())
                .containsEntry("a:1", "UNAVAILABLE: not ready (retry after 3 s)")
                .containsEntry("b:1", "UNAVAILABLE");
    }

    @Test
    void failed_inARow_backoffDoublesUpToItsMost() {
        Endpoint a = list.get(0);
        long[] waits = new long[8];
        for (int i = 0; i < waits.length; i++) {
            endpoints.failed(a, Status.DEADLINE_EXCEEDED, null);
            endpoints.failed(list.get(1), Status.UNAVAILABLE, retryAfter("60"));
            endpoints.failed(list.get(2), Status.UNAVAILABLE, retryAfter("60"));
            waits[i] = endpoints.untilNext();
            now += waits[i];
            assertThat(endpoints.pick()).isSameAs(a);
        }
        assertThat(waits[0]).isEqualTo(TimeUnit.MILLISECONDS.toNanos(250));
        assertThat(waits[1]).isEqualTo(TimeUnit.MILLISECONDS.toNanos(500));
        assertThat(waits[5]).isEqualTo(TimeUnit.SECONDS.toNanos(8));
        assertThat(waits[7]).isEqualTo(TimeUnit.SECONDS.toNanos(8));
        endpoints.succeeded(a);
        endpoints.failed(a, Status.DEADLINE_EXCEEDED, null);
        assertThat(endpoints.untilNext()).as("after a success, from 250 ms again")
                .isEqualTo(TimeUnit.MILLISECONDS.toNanos(250));
    }

    @Test
    void retryAfterSeconds_absentOrNotANumber_zero() {
        assertThat(Endpoints.retryAfterSeconds(null)).isZero();
        assertThat(Endpoints.retryAfterSeconds(new Metadata())).isZero();
        assertThat(Endpoints.retryAfterSeconds(retryAfter("soon"))).isZero();
        assertThat(Endpoints.retryAfterSeconds(retryAfter("2"))).isEqualTo(2);
    }
}

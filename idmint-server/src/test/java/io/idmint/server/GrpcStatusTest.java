package io.idmint.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.idmint.IdUnavailableException;
import io.idmint.IdUnavailableException.Reason;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** How {@link GrpcStatus} maps what {@link IdService} throws to gRPC statuses. */
class GrpcStatusTest {

    @Test
    void toStatus_illegalArgument_isInvalidArgumentWithTheMessage() {
        StatusRuntimeException e =
                GrpcStatus.of(new IllegalArgumentException("count must be from 1 to 10, got 0"));

        assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
        assertThat(e.getStatus().getDescription()).isEqualTo("count must be from 1 to 10, got 0");
    }

    @Test
    void toStatus_unavailable_isUnavailableWithRetryAfterInWholeSecondsRoundedUp() {
        assertThat(retryAfter(Duration.ofMillis(1500))).isEqualTo("2");
        assertThat(retryAfter(Duration.ofSeconds(3))).isEqualTo("3");
        assertThat(retryAfter(Duration.ofMillis(1))).isEqualTo("1");
    }

    @Test
    void toStatus_unavailableWithZeroRetry_stillSaysOneSecondAsHttpDoes() {
        assertThat(retryAfter(Duration.ZERO)).isEqualTo("1");
    }

    @Test
    void toStatus_unavailable_namesTheReason() {
        StatusRuntimeException e = GrpcStatus.of(new IdUnavailableException(
                Reason.CLOCK_BEHIND, "clock is 50 ms behind", Duration.ofSeconds(1)));

        assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
        assertThat(e.getStatus().getDescription())
                .isEqualTo("clock is 50 ms behind (CLOCK_BEHIND)");
    }

    @Test
    void toStatus_anythingElse_isInternal() {
        StatusRuntimeException e = GrpcStatus.of(new IllegalStateException("boom"));

        assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INTERNAL);
    }

    private static String retryAfter(Duration d) {
        StatusRuntimeException e = GrpcStatus.of(
                new IdUnavailableException(Reason.RUNWAY_EXHAUSTED, "runway used up", d));
        assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
        return e.getTrailers().get(GrpcApi.RETRY_AFTER);
    }
}

package io.idmint.server.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.idmint.GeneratorStatus;
import io.idmint.IdGenerator;
import io.idmint.IdUnavailableException;
import io.idmint.IdUnavailableException.Reason;
import io.idmint.Layout;
import io.idmint.server.api.ApiException;
import io.idmint.server.api.IdService;
import io.idmint.server.api.InternalErrors;
import io.idmint.server.api.RequestPipeline;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * How {@link GrpcStatus} maps what the pipeline throws to gRPC statuses: only a parse step's
 * refusal is the caller's (INVALID_ARGUMENT); anything else from minting is INTERNAL.
 */
class GrpcStatusTest {

    private static final InternalErrors ERRORS =
            new InternalErrors(io.idmint.TimeSource.system());

    @Test
    void toStatus_badCountFromTheParseStep_isInvalidArgumentWithTheMessage() {
        ApiException refused = catchThrowableOfType(
                () -> RequestPipeline.count(true, 0, 10), ApiException.class);

        StatusRuntimeException e = GrpcStatus.of(refused, ERRORS, "NextIds");

        assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
        assertThat(e.getStatus().getDescription()).isEqualTo("count must be from 1 to 10, got 0");
    }

    @Test
    void illegalArgumentWhileMinting_isInternalOnGrpc_and500OnHttp() {
        IdService service = new IdService(new Failing(
                new IllegalArgumentException("a bug in the generator")), 10, n -> { }, e -> { });
        RuntimeException thrown = catchThrowableOfType(
                () -> service.fill(new long[1], 1), RuntimeException.class);

        assertThat(thrown).isInstanceOf(IllegalArgumentException.class);
        assertThat(GrpcStatus.of(thrown, ERRORS, "NextIds").getStatus().getCode())
                .isEqualTo(Status.Code.INTERNAL);
        // Not the caller's to know: HttpApi answers what of() does not map with 500, logged.
        assertThat(ApiException.of(thrown)).isNull();
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
                Reason.CLOCK_BEHIND, "clock is 50 ms behind", Duration.ofSeconds(1)), ERRORS,
                "NextIds");

        assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
        assertThat(e.getStatus().getDescription())
                .isEqualTo("clock is 50 ms behind (CLOCK_BEHIND)");
    }

    @Test
    void toStatus_anythingElse_isInternalNamingAnIncidentIdNotTheException() {
        StatusRuntimeException e = GrpcStatus.of(new IllegalStateException("boom"), ERRORS,
                "NextIds");

        assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INTERNAL);
        assertThat(e.getStatus().getDescription())
                .matches("internal error; the server logged it with id \\d+")
                .doesNotContain("IllegalStateException").doesNotContain("boom");
        assertThat(e.getCause()).isNull();
    }

    private static String retryAfter(Duration d) {
        StatusRuntimeException e = GrpcStatus.of(
                new IdUnavailableException(Reason.RUNWAY_EXHAUSTED, "runway used up", d), ERRORS,
                "NextIds");
        assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
        return e.getTrailers().get(GrpcApi.RETRY_AFTER);
    }

    /** A generator with a bug: every mint throws {@code bug}. */
    private record Failing(RuntimeException bug) implements IdGenerator {
        @Override
        public long nextId() {
            throw bug;
        }

        @Override
        public long nextId(long shardKey) {
            throw bug;
        }

        @Override
        public void nextIds(long[] ids, int from, int to) {
            throw bug;
        }

        @Override
        public Layout layout() {
            return Layout.SNOWFLAKE;
        }

        @Override
        public GeneratorStatus status() {
            throw bug;
        }

        @Override
        public void close() {
        }
    }
}

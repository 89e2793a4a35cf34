package io.idmint.server.api;

import io.idmint.IdUnavailableException;
import io.idmint.server.mint.CodesAndFormats;
import io.idmint.spi.UnknownTagException;

/**
 * Why a request was refused or could not be answered: the one error type of the request
 * pipeline. HTTP answers it as its {@link Problem} (status, problem document, {@code
 * Retry-After}); gRPC maps the same problem to a status code (see {@code grpc.GrpcStatus}).
 */
public final class ApiException extends RuntimeException {

    private final Problem problem;
    private final long retryAfterSeconds;

    /**
     * @param detail names the bad value, in plain words
     * @param retryAfterSeconds when to try again, or 0 when retrying will not help
     */
    public ApiException(Problem problem, String detail, long retryAfterSeconds) {
        super(detail, null, false, false);
        this.problem = problem;
        this.retryAfterSeconds = retryAfterSeconds;
    }

    public ApiException(Problem problem, String detail) {
        this(problem, detail, 0);
    }

    public Problem problem() {
        return problem;
    }

    /** Whole seconds to wait before retrying, at least 1; 0 when retrying will not help. */
    public long retryAfterSeconds() {
        return retryAfterSeconds;
    }

    /**
     * A parse step's refusal of the caller's input: BAD_PARAMETER with its message. Only parse
     * steps map an {@link IllegalArgumentException} so; one from minting or rendering is a bug.
     */
    public static ApiException badParameter(IllegalArgumentException e) {
        return new ApiException(Problem.BAD_PARAMETER, e.getMessage());
    }

    /**
     * What a failure of the minting or segment layer means to a caller, or null when it is not
     * the caller's to know (a bug: an internal error, even an {@link IllegalArgumentException}).
     */
    public static ApiException of(Throwable e) {
        if (e instanceof ApiException a) {
            return a;
        }
        if (e instanceof CodesAndFormats.NotConfiguredException) {
            return new ApiException(Problem.NOT_CONFIGURED, e.getMessage());
        }
        if (e instanceof SegmentService.TagExistsException) {
            return new ApiException(Problem.TAG_EXISTS, e.getMessage());
        }
        if (e instanceof SegmentService.StoreRefusedException) {
            return new ApiException(Problem.BAD_PARAMETER, e.getMessage());
        }
        if (e instanceof SegmentService.TooManyTagsException) {
            return new ApiException(Problem.TOO_MANY_TAGS, e.getMessage());
        }
        if (e instanceof UnknownTagException) {
            return new ApiException(Problem.UNKNOWN_TAG, e.getMessage());
        }
        if (e instanceof IdUnavailableException u) {
            return new ApiException(Problem.NOT_READY, u.getMessage() + " (" + u.reason() + ")",
                    Math.max(1, (u.retryAfter().toMillis() + 999) / 1000));
        }
        if (e instanceof SegmentService.StoreUnavailableException) {
            return new ApiException(Problem.STORE_UNAVAILABLE, e.getMessage(),
                    SegmentService.RETRY_AFTER.toSeconds());
        }
        return null;
    }
}

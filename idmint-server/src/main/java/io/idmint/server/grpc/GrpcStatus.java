package io.idmint.server.grpc;

import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.idmint.server.api.ApiException;
import io.idmint.server.api.InternalErrors;
import io.idmint.server.api.Problem;

/**
 * The gRPC status of what the request pipeline refused, by its {@link Problem} (see
 * docs/http-grpc.md):
 *
 * <table>
 *   <caption>What maps to what</caption>
 *   <tr><th>Problem</th><th>HTTP</th><th>gRPC status</th></tr>
 *   <tr><td>bad parameter, malformed ID or code</td><td>400</td>
 *       <td>INVALID_ARGUMENT, the detail as description</td></tr>
 *   <tr><td>more than one token (Authorization header, authorization value)</td><td>400</td>
 *       <td>INVALID_ARGUMENT</td></tr>
 *   <tr><td>no or wrong token</td><td>401</td><td>UNAUTHENTICATED</td></tr>
 *   <tr><td>API token on an admin call</td><td>403</td><td>PERMISSION_DENIED</td></tr>
 *   <tr><td>unknown segment tag</td><td>404</td><td>NOT_FOUND</td></tr>
 *   <tr><td>segment tag exists</td><td>409</td><td>ALREADY_EXISTS</td></tr>
 *   <tr><td>over the client's IDs per second</td><td>429 + Retry-After</td>
 *       <td>RESOURCE_EXHAUSTED + {@code retry-after} trailer</td></tr>
 *   <tr><td>a segment tag past segment.max-tags</td><td>429</td>
 *       <td>RESOURCE_EXHAUSTED</td></tr>
 *   <tr><td>codes, flakes or segments not configured</td><td>503</td>
 *       <td>FAILED_PRECONDITION: retrying will not help until the server is configured</td></tr>
 *   <tr><td>not ready, segment store down, server holding its most unread replies</td>
 *       <td>503 + Retry-After</td>
 *       <td>UNAVAILABLE + {@code retry-after} trailer</td></tr>
 *   <tr><td>anything else: a bug</td><td>500</td>
 *       <td>INTERNAL, naming the incident id {@link InternalErrors} logged it with</td></tr>
 * </table>
 *
 * <p>The {@code retry-after} trailer holds whole seconds, at least 1, as HTTP's
 * {@code Retry-After} does.
 */
public final class GrpcStatus {

    private GrpcStatus() {
    }

    /**
     * The status to close a call with after {@code e}; anything unforeseen is INTERNAL, logged
     * by {@code errors} and described by its incident id only, never by the exception.
     *
     * @param call what was being answered, for the log: a method name
     */
    static StatusRuntimeException of(RuntimeException e, InternalErrors errors, String call) {
        if (e instanceof StatusRuntimeException s) {
            return s;
        }
        ApiException refused = ApiException.of(e);
        if (refused == null) {
            return Status.INTERNAL.withDescription(errors.report(e, call)).asRuntimeException();
        }
        Status status = switch (refused.problem()) {
            case UNAUTHORIZED -> Status.UNAUTHENTICATED;
            case FORBIDDEN -> Status.PERMISSION_DENIED;
            case UNKNOWN_TAG, NOT_FOUND -> Status.NOT_FOUND;
            case TAG_EXISTS -> Status.ALREADY_EXISTS;
            case RATE_LIMITED, TOO_MANY_TAGS -> Status.RESOURCE_EXHAUSTED;
            case NOT_CONFIGURED -> Status.FAILED_PRECONDITION;
            case NOT_READY, STORE_UNAVAILABLE, OVERLOADED -> Status.UNAVAILABLE;
            case INTERNAL -> Status.INTERNAL;
            default -> Status.INVALID_ARGUMENT;
        };
        Metadata trailers = new Metadata();
        if (refused.retryAfterSeconds() > 0) {
            trailers.put(GrpcApi.RETRY_AFTER, Long.toString(refused.retryAfterSeconds()));
        }
        return status.withDescription(refused.getMessage()).asRuntimeException(trailers);
    }
}

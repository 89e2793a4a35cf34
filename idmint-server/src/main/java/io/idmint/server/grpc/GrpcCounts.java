package io.idmint.server.grpc;

import io.grpc.ForwardingServerCall;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import io.idmint.server.ops.Metrics;

/**
 * Counts every call of the gRPC API by method and the status it closed with
 * ({@code idmint_grpc_requests_total{method,code}}), as {@code idmint_http_requests_total} does
 * for HTTP: refusals (UNAUTHENTICATED, RESOURCE_EXHAUSTED, INVALID_ARGUMENT…) and internal
 * errors included. Outermost, so it sees what {@link GrpcCallers} refuses too.
 */
final class GrpcCounts implements ServerInterceptor {

    private final Metrics metrics;

    GrpcCounts(Metrics metrics) {
        this.metrics = metrics;
    }

    @Override
    public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
            ServerCallHandler<Q, R> next) {
        String method = call.getMethodDescriptor().getBareMethodName();
        return next.startCall(new ForwardingServerCall.SimpleForwardingServerCall<>(call) {
            @Override
            public void close(Status status, Metadata trailers) {
                metrics.grpcCall(method, status.getCode());
                super.close(status, trailers);
            }
        }, headers);
    }
}

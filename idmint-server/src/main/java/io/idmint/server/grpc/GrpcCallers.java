package io.idmint.server.grpc;

import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.Grpc;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.StatusRuntimeException;
import io.idmint.server.api.Operation;
import io.idmint.server.api.RequestPipeline;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.List;

/**
 * The authorise step for gRPC: reads who is calling from the {@code authorization} metadata and
 * the peer address, has the {@link RequestPipeline} check the token its {@link Operation} needs
 * (the one of the method's name) before the call runs, and
 * hands the caller to the handler (see {@link #current()}) for the charge step. It is used only
 * when the pipeline is {@linkplain RequestPipeline#guarded() guarded}; otherwise a call never
 * meets it and its caller is {@link RequestPipeline.Caller#NOBODY}.
 */
final class GrpcCallers implements ServerInterceptor {

    private static final Context.Key<RequestPipeline.Caller> CALLER =
            Context.keyWithDefault("idmint-caller", RequestPipeline.Caller.NOBODY);

    private final RequestPipeline pipeline;

    GrpcCallers(RequestPipeline pipeline) {
        this.pipeline = pipeline;
    }

    /** The caller of the call running on this thread. */
    static RequestPipeline.Caller current() {
        return CALLER.get();
    }

    @Override
    public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
            ServerCallHandler<Q, R> next) {
        SocketAddress remote = call.getAttributes().get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR);
        Iterable<String> tokens = headers.getAll(GrpcApi.AUTHORIZATION);
        List<String> authorizations = new ArrayList<>(1);
        if (tokens != null) {
            tokens.forEach(authorizations::add);
        }
        RequestPipeline.Caller caller = RequestPipeline.Caller.of(authorizations,
                remote instanceof InetSocketAddress inet && inet.getAddress() != null
                        ? inet.getAddress().getHostAddress() : String.valueOf(remote));
        String name = call.getMethodDescriptor().getBareMethodName();
        try {
            // Only idmint.v1.IdService is intercepted: each of its methods is an operation.
            pipeline.authorise(caller, Operation.named(name), name);
        } catch (RuntimeException e) {
            StatusRuntimeException refused = GrpcStatus.of(e, pipeline.errors(), name);
            call.close(refused.getStatus(), new Metadata());
            return new ServerCall.Listener<>() { };
        }
        return Contexts.interceptCall(Context.current().withValue(CALLER, caller), call,
                headers, next);
    }
}

package io.idmint.client;

import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.Status;
import io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import io.idmint.grpc.v1.IdServiceGrpc;
import io.idmint.grpc.v1.NextIdsResponse;
import io.idmint.grpc.v1.NextSegmentIdsRequest;
import io.idmint.grpc.v1.StreamIdsRequest;
import io.idmint.testkit.TestPki;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContextBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A grpc-java server on loopback that answers the client's calls as a test scripts it: IDs
 * counted up from a start it is given, or refusals (UNAVAILABLE with an optional
 * {@code retry-after}), or silence (a stopped server). It records when each call came and its
 * {@code authorization} header, and stands in for the faults a real server is not made to show
 * on demand; the real servers are in idmint-server's IdClientFailoverIT.
 */
final class ScriptedServer implements AutoCloseable {

    private static final Metadata.Key<String> AUTHORIZATION =
            Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);

    /** How the server answers the next calls. */
    enum Mode {
        SERVE, REFUSE, SILENT
    }

    final AtomicLong next;
    final List<Long> callNanos = new CopyOnWriteArrayList<>();
    /** The {@code authorization} header of each call that carried one. */
    final List<String> authorizations = new CopyOnWriteArrayList<>();
    private volatile Mode mode = Mode.SERVE;
    private volatile long retryAfterSeconds;
    private volatile boolean emptySegments;
    private final Server server;

    ScriptedServer(long firstId) {
        this(firstId, null, null);
    }

    /** With TLS from {@code pki}'s server certificate; {@code clientCa} non-null for mTLS. */
    ScriptedServer(long firstId, TestPki pki, Path clientCa) {
        this.next = new AtomicLong(firstId);
        NettyServerBuilder b = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
                .addService(ServerInterceptors.intercept(new Service(), new ServerInterceptor() {
                    @Override
                    public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call,
                            Metadata headers, ServerCallHandler<Q, R> next) {
                        String value = headers.get(AUTHORIZATION);
                        if (value != null) {
                            authorizations.add(value);
                        }
                        return next.startCall(call, headers);
                    }
                }));
        try {
            if (pki != null) {
                TestPki.Issued cert = pki.server("scripted");
                SslContextBuilder tls = GrpcSslContexts.forServer(cert.certificate().toFile(),
                        cert.privateKey().toFile());
                if (clientCa != null) {
                    tls.trustManager(clientCa.toFile()).clientAuth(ClientAuth.REQUIRE);
                }
                b.sslContext(tls.build());
            }
            this.server = b.build().start();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    String target() {
        return "127.0.0.1:" + server.getPort();
    }

    void serve() {
        mode = Mode.SERVE;
    }

    /** Refuses every call with UNAVAILABLE and, when above 0, a retry-after trailer. */
    void refuse(long retryAfterSeconds) {
        this.retryAfterSeconds = retryAfterSeconds;
        mode = Mode.REFUSE;
    }

    void silent() {
        mode = Mode.SILENT;
    }

    /** Answers NextSegmentIds with no IDs. */
    void emptySegments() {
        emptySegments = true;
    }

    @Override
    public void close() throws InterruptedException {
        server.shutdownNow().awaitTermination();
    }

    private boolean refused(StreamObserver<?> out) {
        callNanos.add(System.nanoTime());
        if (mode == Mode.REFUSE) {
            Metadata trailers = new Metadata();
            if (retryAfterSeconds > 0) {
                trailers.put(Endpoints.RETRY_AFTER, Long.toString(retryAfterSeconds));
            }
            out.onError(Status.UNAVAILABLE.withDescription("scripted refusal")
                    .asRuntimeException(trailers));
            return true;
        }
        return mode == Mode.SILENT;
    }

    private NextIdsResponse batch(int n) {
        long first = next.getAndAdd(n);
        NextIdsResponse.Builder r = NextIdsResponse.newBuilder();
        for (int i = 0; i < n; i++) {
            r.addIds(first + i);
        }
        return r.build();
    }

    private final class Service extends IdServiceGrpc.IdServiceImplBase {

        @Override
        public void streamIds(StreamIdsRequest request, StreamObserver<NextIdsResponse> out) {
            if (refused(out)) {
                return;
            }
            ServerCallStreamObserver<NextIdsResponse> call =
                    (ServerCallStreamObserver<NextIdsResponse>) out;
            long[] remaining = {request.getCount()};
            call.setOnCancelHandler(() -> { });
            call.setOnReadyHandler(() -> {
                synchronized (remaining) {
                    while (remaining[0] > 0 && call.isReady() && !call.isCancelled()) {
                        if (mode == Mode.REFUSE) {
                            refused(out);
                            remaining[0] = 0;
                            return;
                        }
                        if (mode == Mode.SILENT) {
                            return;
                        }
                        int n = (int) Math.min(1000, remaining[0]);
                        out.onNext(batch(n));
                        remaining[0] -= n;
                    }
                    if (remaining[0] == 0 && !call.isCancelled()) {
                        remaining[0] = -1;
                        out.onCompleted();
                    }
                }
            });
        }

        /** Serial "receipt": R- and the server's counter; any other name is NOT_FOUND. */
        @Override
        public void nextSerials(io.idmint.grpc.v1.NextSerialsRequest request,
                StreamObserver<io.idmint.grpc.v1.NextSerialsResponse> out) {
            if (refused(out)) {
                return;
            }
            if (!request.getName().equals("receipt")) {
                out.onError(Status.NOT_FOUND.withDescription("serial '" + request.getName()
                        + "' is not defined").asRuntimeException());
                return;
            }
            io.idmint.grpc.v1.NextSerialsResponse.Builder b =
                    io.idmint.grpc.v1.NextSerialsResponse.newBuilder();
            for (int i = 0; i < Math.max(1, request.getCount()); i++) {
                b.addValues("R-" + next.getAndIncrement());
            }
            out.onNext(b.build());
            out.onCompleted();
        }

        @Override
        public void nextSegmentIds(NextSegmentIdsRequest request,
                StreamObserver<NextIdsResponse> out) {
            if (refused(out)) {
                return;
            }
            if (!request.getTag().equals("order")) {
                out.onError(Status.NOT_FOUND.withDescription("unknown segment tag '"
                        + request.getTag() + "'").asRuntimeException());
                return;
            }
            out.onNext(emptySegments ? NextIdsResponse.getDefaultInstance()
                    : batch(request.getCount()));
            out.onCompleted();
        }
    }
}

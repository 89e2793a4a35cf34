package io.idmint.server;

import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.Grpc;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import io.idmint.IdParts;
import io.idmint.IdUnavailableException;
import io.idmint.grpc.v1.DecodeCodeRequest;
import io.idmint.grpc.v1.DecodeRequest;
import io.idmint.grpc.v1.DecodeResponse;
import io.idmint.grpc.v1.CreateSegmentRequest;
import io.idmint.grpc.v1.IdServiceGrpc;
import io.idmint.grpc.v1.ListSegmentsRequest;
import io.idmint.grpc.v1.ListSegmentsResponse;
import io.idmint.grpc.v1.NextCodesRequest;
import io.idmint.grpc.v1.NextCodesResponse;
import io.idmint.grpc.v1.NextFlakesRequest;
import io.idmint.grpc.v1.NextFlakesResponse;
import io.idmint.grpc.v1.NextIdsRequest;
import io.idmint.grpc.v1.NextIdsResponse;
import io.idmint.grpc.v1.NextObjectIdsRequest;
import io.idmint.grpc.v1.NextSegmentIdsRequest;
import io.idmint.grpc.v1.NextObjectIdsResponse;
import io.idmint.grpc.v1.NextUuidsRequest;
import io.idmint.grpc.v1.NextUuidsResponse;
import io.idmint.grpc.v1.SegmentTag;
import io.idmint.grpc.v1.StreamIdsRequest;
import io.idmint.spi.TagInfo;
import io.idmint.spi.UnknownTagException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The gRPC adapter over {@link IdService} ({@code idmint.v1.IdService}, SPEC "gRPC"): the same
 * limits and errors as HTTP, mapped to status codes.
 *
 * <table>
 *   <caption>What maps to what</caption>
 *   <tr><th>Condition</th><th>HTTP</th><th>gRPC status</th></tr>
 *   <tr><td>count outside 1..max-count (NextIds) or 1..100,000,000 (StreamIds), negative ID,
 *       ID with bits outside the layout ({@link IllegalArgumentException})</td>
 *       <td>400</td><td>INVALID_ARGUMENT, the message as description</td></tr>
 *   <tr><td>no or wrong token ({@link Access.Verdict#UNAUTHORIZED})</td>
 *       <td>401</td><td>UNAUTHENTICATED</td></tr>
 *   <tr><td>API token on Decode when an admin token is set ({@link Access.Verdict#FORBIDDEN})</td>
 *       <td>403</td><td>PERMISSION_DENIED</td></tr>
 *   <tr><td>over the client's IDs per second ({@link Access.Verdict#RATE_LIMITED})</td>
 *       <td>429 + Retry-After</td><td>RESOURCE_EXHAUSTED + {@code retry-after} trailer</td></tr>
 *   <tr><td>codes or flakes not configured ({@link Formats.NotConfiguredException})</td>
 *       <td>503</td><td>FAILED_PRECONDITION: retrying will not help until the server is
 *       configured</td></tr>
 *   <tr><td>not ready ({@link IdUnavailableException}), segment store down
 *       ({@link SegmentService.StoreUnavailableException})</td><td>503 + Retry-After</td>
 *       <td>UNAVAILABLE, the message as description, + {@code retry-after} trailer</td></tr>
 *   <tr><td>unknown segment tag ({@link UnknownTagException})</td><td>404</td>
 *       <td>NOT_FOUND</td></tr>
 *   <tr><td>create of a segment tag that exists
 *       ({@link SegmentService.TagExistsException})</td><td>409</td>
 *       <td>ALREADY_EXISTS</td></tr>
 * </table>
 *
 * <p>The {@code retry-after} trailer holds whole seconds, rounded up and at least 1, as HTTP's
 * {@code Retry-After} does.
 *
 * <p>Tokens come in the {@code authorization: Bearer <token>} metadata and are checked by an
 * interceptor before the call runs; Decode, DecodeCode, CreateSegment and ListSegments are admin
 * calls. The rate limit is charged by the
 * handler after the request is validated and before anything is minted, so a rejected call
 * issues nothing. Its client is the {@code authorization} value when auth is on (only valid
 * tokens get that far; HTTP keys on the same string, so one {@link Access} limits a client across
 * both transports), else the remote IP: with auth off a token proves nothing, and keying on it
 * would let a client dodge the limit, and grow {@link Access}'s table, with a new one each call.
 *
 * <p>StreamIds sends batches of up to {@value #STREAM_BATCH} IDs (fewer when max-count or the
 * IDs-per-second limit is smaller) and charges the rate limit per batch, just before minting it,
 * as if each batch were a NextIds call: a long stream is throttled like a client polling, and
 * does not need one second's allowance for its whole count up front (which a count above the
 * limit could never get). A batch that is over the limit ends the stream with
 * RESOURCE_EXHAUSTED; the IDs already sent stand. The stream follows flow control: it mints only
 * while the transport {@linkplain ServerCallStreamObserver#isReady() is ready}, so a slow client
 * holds at most a flow-control window of IDs in flight, and it stops minting when the client
 * cancels.
 */
final class GrpcApi extends IdServiceGrpc.IdServiceImplBase {

    /** The largest count one StreamIds call may ask for (SPEC). */
    static final long MAX_STREAM_COUNT = 100_000_000L;

    /** IDs per StreamIds message, unless max-count is smaller. */
    static final int STREAM_BATCH = 1000;

    /** Seconds to wait before retrying, on RESOURCE_EXHAUSTED and UNAVAILABLE. */
    static final Metadata.Key<String> RETRY_AFTER =
            Metadata.Key.of("retry-after", Metadata.ASCII_STRING_MARSHALLER);

    static final Metadata.Key<String> AUTHORIZATION =
            Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);

    /** Who is calling, as the interceptor found it. */
    private record Caller(String authorization, String client) {}

    private static final Context.Key<Caller> CALLER = Context.key("idmint-caller");

    private final IdService service;
    private final Formats formats;
    private final SegmentService segments;
    private final Access access;
    private final int batch;

    private GrpcApi(IdService service, Formats formats, SegmentService segments, Access access) {
        this.service = service;
        this.formats = formats;
        this.segments = segments;
        this.access = access;
        long limit = access.rateLimited() ? access.idsPerSecond() : Long.MAX_VALUE;
        this.batch = (int) Math.min(Math.min(STREAM_BATCH, service.maxCount()), limit);
    }

    /**
     * Starts a gRPC server for {@code service} on {@code host:port} (port 0: a free port, see
     * {@link Server#getPort()}). Stop it with {@code shutdown()} and {@code awaitTermination}.
     *
     * @throws IOException when the address cannot be bound
     */
    static Server start(IdService service, Access access, String host, int port)
            throws IOException {
        return start(service, new Formats(null, null), null, access, host, port);
    }

    /**
     * As {@link #start(IdService, Access, String, int)}, with codes and the other formats, and
     * segments (when null, segment calls answer FAILED_PRECONDITION).
     */
    static Server start(IdService service, Formats formats, SegmentService segments,
            Access access, String host, int port) throws IOException {
        return NettyServerBuilder.forAddress(new InetSocketAddress(host, port))
                .addService(ServerInterceptors.intercept(
                        new GrpcApi(service, formats, segments, access),
                        new Authenticator(access)))
                .executor(executor())
                .build()
                .start();
    }

    /**
     * Calls run off Netty's event loops, because minting may wait for the next tick (up to a
     * second with {@code tick=1s}), on a fixed number of threads. Idle threads end by themselves,
     * so a stopped server leaves none behind.
     */
    private static Executor executor() {
        int threads = Math.max(2, Runtime.getRuntime().availableProcessors());
        AtomicInteger n = new AtomicInteger();
        ThreadPoolExecutor pool = new ThreadPoolExecutor(threads, threads, 30, TimeUnit.SECONDS,
                new LinkedBlockingQueue<>(), r -> {
                    Thread t = new Thread(r, "idmint-grpc-" + n.incrementAndGet());
                    t.setDaemon(true);
                    return t;
                });
        pool.allowCoreThreadTimeOut(true);
        return pool;
    }

    @Override
    public void nextIds(NextIdsRequest request, StreamObserver<NextIdsResponse> out) {
        unary(out, () -> {
            long[] ids = service.next(checkedCount(request.getCount()));
            return response(ids, ids.length);
        });
    }

    @Override
    public void streamIds(StreamIdsRequest request, StreamObserver<NextIdsResponse> out) {
        try {
            IdService.checkCount(request.getCount(), MAX_STREAM_COUNT);
        } catch (IllegalArgumentException e) {
            out.onError(toStatus(e));
            return;
        }
        ServerCallStreamObserver<NextIdsResponse> call =
                (ServerCallStreamObserver<NextIdsResponse>) out;
        IdStream stream = new IdStream(call, request.getCount());
        // Setting a cancel handler also makes onNext after a cancel a no-op instead of a throw.
        call.setOnCancelHandler(stream::cancel);
        // gRPC runs this once the call can send (also right after this method returns) and
        // again whenever the transport drains; never concurrently with the cancel handler.
        call.setOnReadyHandler(stream);
    }

    @Override
    public void decode(DecodeRequest request, StreamObserver<DecodeResponse> out) {
        unary(out, () -> parts(service.decode(request.getId())).build());
    }

    @Override
    public void nextCodes(NextCodesRequest request, StreamObserver<NextCodesResponse> out) {
        unary(out, () -> {
            var codec = formats.requireCodes();
            NextCodesResponse.Builder b = NextCodesResponse.newBuilder();
            for (long id : service.next(checkedCount(request.getCount()))) {
                b.addCodes(codec.encode(id));
            }
            return b.build();
        });
    }

    @Override
    public void decodeCode(DecodeCodeRequest request, StreamObserver<DecodeResponse> out) {
        unary(out, () -> {
            Formats.DecodedCode d = formats.decodeCode(request.getCode(), service.layout());
            return parts(d.parts()).setCode(d.code()).setKeyVersion(d.keyVersion()).build();
        });
    }

    @Override
    public void nextUuids(NextUuidsRequest request, StreamObserver<NextUuidsResponse> out) {
        unary(out, () -> {
            NextUuidsResponse.Builder b = NextUuidsResponse.newBuilder();
            for (int i = checkedCount(request.getCount()); i > 0; i--) {
                b.addUuids(formats.uuids().next().toString());
            }
            return b.build();
        });
    }

    @Override
    public void nextObjectIds(NextObjectIdsRequest request,
            StreamObserver<NextObjectIdsResponse> out) {
        unary(out, () -> {
            NextObjectIdsResponse.Builder b = NextObjectIdsResponse.newBuilder();
            for (int i = checkedCount(request.getCount()); i > 0; i--) {
                b.addObjectIds(formats.objectIds().next().toHexString());
            }
            return b.build();
        });
    }

    @Override
    public void nextFlakes(NextFlakesRequest request, StreamObserver<NextFlakesResponse> out) {
        unary(out, () -> {
            var flakes = formats.requireFlakes();
            NextFlakesResponse.Builder b = NextFlakesResponse.newBuilder();
            for (int i = checkedCount(request.getCount()); i > 0; i--) {
                b.addFlakes(flakes.next().toHexString());
            }
            return b.build();
        });
    }

    @Override
    public void nextSegmentIds(NextSegmentIdsRequest request,
            StreamObserver<NextIdsResponse> out) {
        unary(out, () -> {
            SegmentService s = segments();
            SegmentService.checkTag(request.getTag());
            IdService.checkCount(request.getCount(), s.maxCount());
            charge(CALLER.get(), request.getCount());
            long[] ids = s.next(request.getTag(), request.getCount());
            return response(ids, ids.length);
        });
    }

    @Override
    public void createSegment(CreateSegmentRequest request, StreamObserver<SegmentTag> out) {
        unary(out, () -> tag(segments().create(request.getTag(),
                request.hasStart() ? request.getStart() : null,
                request.hasStep() ? request.getStep() : null)));
    }

    @Override
    public void listSegments(ListSegmentsRequest request,
            StreamObserver<ListSegmentsResponse> out) {
        unary(out, () -> {
            ListSegmentsResponse.Builder b = ListSegmentsResponse.newBuilder();
            segments().tags().forEach(t -> b.addSegments(tag(t)));
            return b.build();
        });
    }

    private SegmentService segments() {
        if (segments == null) {
            throw new Formats.NotConfiguredException("segments are not served here");
        }
        return segments;
    }

    private static SegmentTag tag(TagInfo t) {
        return SegmentTag.newBuilder().setTag(t.tag()).setNext(t.next()).setStep(t.step())
                .build();
    }

    /** Answers a unary call with what {@code call} returns, or with its failure as a status. */
    private static <T> void unary(StreamObserver<T> out, java.util.function.Supplier<T> call) {
        T response;
        try {
            response = call.get();
        } catch (RuntimeException e) {
            out.onError(toStatus(e));
            return;
        }
        out.onNext(response);
        out.onCompleted();
    }

    private static DecodeResponse.Builder parts(IdParts p) {
        return DecodeResponse.newBuilder()
                .setId(p.id())
                .setTimestampMs(p.timestampMillis())
                .setDatacenterId(p.datacenterId())
                .setWorkerId(p.workerId())
                .setSequenceNumber(p.sequence())
                .setShardId(p.shardId());
    }

    /** Checks a count against max-count and charges the caller's rate limit for it. */
    private int checkedCount(int count) {
        IdService.checkCount(count, service.maxCount());
        charge(CALLER.get(), count);
        return count;
    }

    /** Sends one StreamIds call's batches as flow control allows. */
    private final class IdStream implements Runnable {
        private final ServerCallStreamObserver<NextIdsResponse> call;
        private final Caller caller = CALLER.get();
        private long remaining;
        /**
         * The last ID sent. Batches may be minted on different pool threads (one at a time), so
         * each asks for IDs above it: a striped generator orders per thread only.
         */
        private long last;
        private volatile boolean over;

        IdStream(ServerCallStreamObserver<NextIdsResponse> call, long count) {
            this.call = call;
            this.remaining = count;
        }

        void cancel() {
            over = true;
        }

        @Override
        public void run() {
            long[] ids = new long[(int) Math.min(batch, remaining)];
            try {
                // isCancelled() sees a client cancel at once, before the cancel handler runs.
                while (!over && remaining > 0 && call.isReady() && !call.isCancelled()) {
                    int n = (int) Math.min(ids.length, remaining);
                    charge(caller, n);
                    service.fill(ids, n, last);
                    last = ids[n - 1];
                    call.onNext(response(ids, n));
                    remaining -= n;
                }
                if (!over && remaining == 0) {
                    over = true;
                    call.onCompleted();
                }
            } catch (RuntimeException e) {
                if (!over) {
                    over = true;
                    call.onError(toStatus(e));
                }
            }
        }
    }

    /** Charges the rate limit; the token was checked already, by {@link Authenticator}. */
    private void charge(Caller caller, long ids) {
        if (!access.rateLimited()) {
            return;
        }
        Access.Verdict v = access.check(caller.authorization(), false, caller.client(), ids);
        if (v != Access.Verdict.OK) {
            throw refusal(v, access, ids);
        }
    }

    private static NextIdsResponse response(long[] ids, int n) {
        NextIdsResponse.Builder b = NextIdsResponse.newBuilder();
        for (int i = 0; i < n; i++) {
            b.addIds(ids[i]);
        }
        return b.build();
    }

    /** Maps what {@link IdService} throws to a status (see the class comment). */
    static StatusRuntimeException toStatus(RuntimeException e) {
        if (e instanceof StatusRuntimeException s) {
            return s;
        }
        if (e instanceof Formats.NotConfiguredException) {
            return Status.FAILED_PRECONDITION.withDescription(e.getMessage())
                    .asRuntimeException();
        }
        if (e instanceof SegmentService.TagExistsException) {
            return Status.ALREADY_EXISTS.withDescription(e.getMessage()).asRuntimeException();
        }
        if (e instanceof UnknownTagException) {
            return Status.NOT_FOUND.withDescription(e.getMessage()).asRuntimeException();
        }
        if (e instanceof IllegalArgumentException) {
            return Status.INVALID_ARGUMENT.withDescription(e.getMessage()).asRuntimeException();
        }
        if (e instanceof IdUnavailableException u) {
            Metadata trailers = new Metadata();
            long seconds = Math.max(1, (u.retryAfter().toMillis() + 999) / 1000);
            trailers.put(RETRY_AFTER, Long.toString(seconds));
            return Status.UNAVAILABLE.withDescription(u.getMessage() + " (" + u.reason() + ")")
                    .asRuntimeException(trailers);
        }
        if (e instanceof SegmentService.StoreUnavailableException) {
            Metadata trailers = new Metadata();
            trailers.put(RETRY_AFTER, Long.toString(SegmentService.RETRY_AFTER.toSeconds()));
            return Status.UNAVAILABLE.withDescription(e.getMessage())
                    .asRuntimeException(trailers);
        }
        return Status.INTERNAL.withDescription(e.toString()).withCause(e).asRuntimeException();
    }

    private static StatusRuntimeException refusal(Access.Verdict v, Access access, long ids) {
        return switch (v) {
            case UNAUTHORIZED -> Status.UNAUTHENTICATED.withDescription(
                    "this server needs an authorization: Bearer token, and a valid one")
                    .asRuntimeException();
            case FORBIDDEN -> Status.PERMISSION_DENIED
                    .withDescription("Decode, DecodeCode, CreateSegment and ListSegments are "
                            + "admin calls: they need the admin token")
                    .asRuntimeException();
            case RATE_LIMITED -> {
                Metadata trailers = new Metadata();
                trailers.put(RETRY_AFTER, Long.toString(access.retryAfterSeconds()));
                yield Status.RESOURCE_EXHAUSTED.withDescription("over the limit of "
                        + access.idsPerSecond() + " IDs per second for this client; asked for "
                        + ids).asRuntimeException(trailers);
            }
            case OK -> throw new IllegalArgumentException("OK is no refusal");
        };
    }

    /**
     * Checks the bearer token before a call runs (Decode needs the admin token when one is set)
     * and records who is calling for the handler's rate limit.
     */
    private static final class Authenticator implements ServerInterceptor {
        private static final java.util.Set<String> ADMIN_METHODS = java.util.Set.of(
                IdServiceGrpc.getDecodeMethod().getFullMethodName(),
                IdServiceGrpc.getDecodeCodeMethod().getFullMethodName(),
                IdServiceGrpc.getCreateSegmentMethod().getFullMethodName(),
                IdServiceGrpc.getListSegmentsMethod().getFullMethodName());

        private final Access access;

        Authenticator(Access access) {
            this.access = access;
        }

        @Override
        public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call,
                Metadata headers, ServerCallHandler<Q, R> next) {
            String authorization = headers.get(AUTHORIZATION);
            String method = call.getMethodDescriptor().getFullMethodName();
            boolean admin = ADMIN_METHODS.contains(method);
            // ids = 0: the token alone; the handler charges the rate once the count is valid.
            Access.Verdict v = access.authEnabled()
                    ? access.check(authorization, admin, null, 0) : Access.Verdict.OK;
            if (v != Access.Verdict.OK) {
                StatusRuntimeException refused = refusal(v, access, 0);
                call.close(refused.getStatus(), new Metadata());
                return new ServerCall.Listener<>() {};
            }
            Caller caller = new Caller(authorization, client(call, authorization));
            return Contexts.interceptCall(Context.current().withValue(CALLER, caller), call,
                    headers, next);
        }

        private String client(ServerCall<?, ?> call, String authorization) {
            if (access.authEnabled() && authorization != null) {
                return authorization;
            }
            SocketAddress remote = call.getAttributes().get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR);
            return remote instanceof InetSocketAddress inet && inet.getAddress() != null
                    ? inet.getAddress().getHostAddress()
                    : String.valueOf(remote);
        }
    }
}

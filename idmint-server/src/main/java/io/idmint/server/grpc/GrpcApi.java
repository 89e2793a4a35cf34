package io.idmint.server.grpc;

import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ServerInterceptors;
import io.grpc.ServerServiceDefinition;
import io.grpc.netty.NettyServerBuilder;
import io.grpc.protobuf.services.ProtoReflectionService;
import io.grpc.protobuf.services.ProtoReflectionServiceV1;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import io.idmint.IdParts;
import io.idmint.codes.CodeCodec;
import io.idmint.grpc.v1.CreateSegmentRequest;
import io.idmint.grpc.v1.DecodeCodeRequest;
import io.idmint.grpc.v1.DecodeRequest;
import io.idmint.grpc.v1.DecodeResponse;
import io.idmint.grpc.v1.DecodeSegmentCodeRequest;
import io.idmint.grpc.v1.DecodeSegmentCodeResponse;
import io.idmint.grpc.v1.IdServiceGrpc;
import io.idmint.grpc.v1.ListSegmentsRequest;
import io.idmint.grpc.v1.ListSegmentsResponse;
import io.idmint.grpc.v1.ListSerialsRequest;
import io.idmint.grpc.v1.ListSerialsResponse;
import io.idmint.grpc.v1.NextCodesRequest;
import io.idmint.grpc.v1.NextCodesResponse;
import io.idmint.grpc.v1.NextFencedUuidsRequest;
import io.idmint.grpc.v1.NextFlakesRequest;
import io.idmint.grpc.v1.NextFlakesResponse;
import io.idmint.grpc.v1.NextIdsRequest;
import io.idmint.grpc.v1.NextObjectIdsRequest;
import io.idmint.grpc.v1.NextObjectIdsResponse;
import io.idmint.grpc.v1.NextSegmentIdsRequest;
import io.idmint.grpc.v1.NextSerialsRequest;
import io.idmint.grpc.v1.NextSerialsResponse;
import io.idmint.grpc.v1.NextTypedIdsRequest;
import io.idmint.grpc.v1.NextTypedIdsResponse;
import io.idmint.grpc.v1.NextUuidsRequest;
import io.idmint.grpc.v1.NextUuidsResponse;
import io.idmint.grpc.v1.RangeRequest;
import io.idmint.grpc.v1.RangeResponse;
import io.idmint.grpc.v1.SegmentTag;
import io.idmint.grpc.v1.Serial;
import io.idmint.grpc.v1.StreamIdsRequest;
import io.idmint.server.api.ApiException;
import io.idmint.server.api.Calls;
import io.idmint.server.api.IdService;
import io.idmint.server.api.Operation;
import io.idmint.server.api.Problem;
import io.idmint.server.api.RequestPipeline;
import io.idmint.server.api.SegmentService;
import io.idmint.server.api.Waits;
import io.idmint.server.mint.CodesAndFormats;
import io.idmint.server.mint.TimeWindows;
import io.idmint.server.ops.Metrics;
import io.idmint.spi.TagInfo;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.function.LongConsumer;
import java.util.function.Supplier;

/**
 * The gRPC adapter ({@code idmint.v1.IdService}, see docs/http-grpc.md) over the
 * {@link Calls}: each handler reads its request into its operation, which parses, charges and
 * mints (in place: a gRPC call's thread may wait, {@link Waits#IN_PLACE}), and writes the reply
 * from what it answers; the token its {@link Operation} needs is checked before the call runs
 * ({@link GrpcCallers}), and what the pipeline refuses becomes a status ({@link GrpcStatus}).
 *
 * <p>An absent count is 1, as in HTTP; an absent ID or code is INVALID_ARGUMENT "missing …".
 * A unary reply is capped by its encoded size at {@value #MAX_REPLY_BYTES} bytes, the most a
 * gRPC client accepts by default: a count whose reply could be larger is INVALID_ARGUMENT naming
 * the most one call may ask for, whatever max-count allows. StreamIds ({@link GrpcIdStream})
 * serves bulk: batches of up to {@value #STREAM_BATCH} IDs (fewer when max-count or the
 * IDs-per-second limit is smaller), up to {@value #MAX_STREAM_COUNT} in one call.
 */
public final class GrpcApi extends IdServiceGrpc.IdServiceImplBase {

    /** The largest count one StreamIds call may ask for ({@link Calls#MAX_STREAM_COUNT}). */
    public static final long MAX_STREAM_COUNT = Calls.MAX_STREAM_COUNT;

    /** IDs per StreamIds message, unless max-count is smaller. */
    static final int STREAM_BATCH = 1000;

    /** Seconds to wait before retrying, on RESOURCE_EXHAUSTED and UNAVAILABLE. */
    public static final Metadata.Key<String> RETRY_AFTER =
            Metadata.Key.of("retry-after", Metadata.ASCII_STRING_MARSHALLER);

    public static final Metadata.Key<String> AUTHORIZATION =
            Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);

    /**
     * The most bytes one unary reply may encode to: what grpc-java, grpc-js and grpc-go clients
     * accept by default (4 MiB).
     */
    public static final int MAX_REPLY_BYTES = 4 * 1024 * 1024;
    /** A reply's bytes besides its items: a packed field's tag and length. */
    private static final int REPLY_OVERHEAD = 5;
    /** The most bytes one item takes in a reply: an int64 ID below 2^63 as a varint. */
    private static final int ID_BYTES = 9;
    private static final LongConsumer NEXT_IDS_FIT = fits(ID_BYTES, "NextIds",
            "or use StreamIds for more");
    private static final LongConsumer NEXT_CODES_FIT = fits(2 + CodeCodec.LENGTH, "NextCodes",
            "and call again for more");
    private static final LongConsumer NEXT_UUIDS_FIT = fits(2 + 36, "NextUuids",
            "and call again for more");
    private static final LongConsumer NEXT_OBJECT_IDS_FIT = fits(2 + 24, "NextObjectIds",
            "and call again for more");
    private static final LongConsumer NEXT_FLAKES_FIT = fits(2 + 32, "NextFlakes",
            "and call again for more");
    /** A serial's value: a template of at most 100 characters, its date fields written out. */
    private static final LongConsumer NEXT_SERIALS_FIT = fits(2 + 512, "NextSerials",
            "and call again for more");
    private static final LongConsumer NEXT_SEGMENT_IDS_FIT = fits(ID_BYTES, "NextSegmentIds",
            "and call again for more");
    private static final LongConsumer NEXT_SEGMENT_CODES_FIT = fits(2 + CodeCodec.LENGTH,
            "NextSegmentCodes", "and call again for more");

    private final Calls ops;
    private final RequestPipeline pipeline;
    private final int batch;
    private final GrpcIdStream.Pauses pauses;
    private final Executor calls;

    private GrpcApi(IdService service, CodesAndFormats formats, SegmentService segments,
            RequestPipeline pipeline, GrpcIdStream.Pauses pauses, Executor calls) {
        this.pauses = pauses;
        this.calls = calls;
        this.ops = new Calls(pipeline, service, formats, segments);
        this.pipeline = pipeline;
        this.batch = (int) Math.min(Math.min(STREAM_BATCH, service.maxCount()),
                pipeline.mostPerCharge());
    }

    /**
     * Starts a gRPC server on {@code host:port} (port 0: a free port, see
     * {@link Server#getPort()}), with health ({@link GrpcHealth}) and server reflection (v1 and
     * v1alpha), with segments when {@code segments} is not null (else segment
     * calls answer FAILED_PRECONDITION). Stop it with {@code shutdown()}, then
     * {@code pauses.drain()} (which ends the StreamIds calls paused by the rate limit), then
     * {@code awaitTermination}.
     *
     * @param tls TLS for every connection, or null for plaintext
     * @param limits what the server holds for callers at most, and the event loops it runs on
     * @param metrics counts each call by method and status
     * @throws IOException when the address cannot be bound
     */
    public static Server start(IdService service, CodesAndFormats formats, SegmentService segments,
            RequestPipeline pipeline, GrpcHealth health, GrpcIdStream.Pauses pauses, String host,
            int port, io.netty.handler.ssl.SslContext tls, GrpcLimits limits, Metrics metrics)
            throws IOException {
        Executor calls = limits.calls();
        ServerServiceDefinition api =
                new GrpcApi(service, formats, segments, pipeline, pauses, calls).definition();
        NettyServerBuilder builder =
                limits.applyTo(NettyServerBuilder.forAddress(new InetSocketAddress(host, port)));
        // Nothing to check or charge when unguarded: no caller to read, no context per call.
        // The last interceptor given runs first: the counts see what the callers refuse.
        return builder.sslContext(tls)
                .addService(pipeline.guarded()
                        ? ServerInterceptors.intercept(api, new GrpcCallers(pipeline),
                                new GrpcCounts(metrics))
                        : ServerInterceptors.intercept(api, new GrpcCounts(metrics)))
                // Probes and grpcurl carry no token, as HTTP's /health/* need none.
                .addService(health.service())
                .addService(ProtoReflectionServiceV1.newInstance())
                .addService(ProtoReflectionService.newInstance())
                .build()
                .start();
    }

    /**
     * The service as the server binds it: the generated one, with the calls that answer IDs
     * written by {@link GrpcIdBatch} (their generated methods here would answer UNIMPLEMENTED).
     */
    ServerServiceDefinition definition() {
        return GrpcIdBatch.bind(bindService(), ServerCalls.asyncUnaryCall(this::mintIds),
                ServerCalls.asyncServerStreamingCall(this::streamIdBatches),
                ServerCalls.asyncUnaryCall(this::mintSegmentIds));
    }

    /** NextIds. */
    private void mintIds(NextIdsRequest request, StreamObserver<GrpcIdBatch> out) {
        awaited(out, () -> ops.nextIds(GrpcCallers.current(), request.hasCount(),
                request.getCount(), NEXT_IDS_FIT, Waits.IN_PLACE)
                .thenApply(b -> new GrpcIdBatch(b.ids(), b.count())));
    }

    /** StreamIds. */
    private void streamIdBatches(StreamIdsRequest request, StreamObserver<GrpcIdBatch> out) {
        long count;
        try {
            count = ops.streamCount(request.hasCount(), request.getCount());
            // A stream mints only while gRPC holds under its ready threshold (32 KiB) unsent.
            GrpcLimits.reserve(32 * 1024 + REPLY_OVERHEAD + Math.min(batch, count) * ID_BYTES);
        } catch (RuntimeException e) {
            out.onError(GrpcStatus.of(e, pipeline.errors(), "StreamIds"));
            return;
        }
        GrpcIdStream.start((ServerCallStreamObserver<GrpcIdBatch>) out, ops, pipeline,
                GrpcCallers.current(), batch, count, pauses, calls);
    }

    @Override
    public void decode(DecodeRequest request, StreamObserver<DecodeResponse> out) {
        unary(out, () -> {
            return parts(ops.decode(request.hasId(), request.getId(),
                    "missing id: set DecodeRequest.id")).build();
        });
    }

    @Override
    public void range(RangeRequest request, StreamObserver<RangeResponse> out) {
        unary(out, () -> {
            TimeWindows.Window w = ops.range(request.getFrom().isEmpty() ? null
                    : request.getFrom(), request.getTo().isEmpty() ? null : request.getTo(),
                    request.getKind().isEmpty() ? null : request.getKind(), "RangeRequest.from",
                    "RangeRequest.to");
            RangeResponse.Builder b = RangeResponse.newBuilder().setKind(w.kind())
                    .setIdFrom(w.idFrom()).setIdTo(w.idTo());
            return (w.layout() == null ? b : b.setLayout(w.layout())).build();
        });
    }

    @Override
    public void nextCodes(NextCodesRequest request, StreamObserver<NextCodesResponse> out) {
        awaited(out, () -> ops.nextCodes(GrpcCallers.current(), request.hasCount(),
                request.getCount(), NEXT_CODES_FIT, Waits.IN_PLACE)
                .thenApply(codes -> NextCodesResponse.newBuilder()
                        .addAllCodes(Arrays.asList(codes)).build()));
    }

    @Override
    public void decodeCode(DecodeCodeRequest request, StreamObserver<DecodeResponse> out) {
        unary(out, () -> {
            // Unlike HTTP, not served() first: DecodeCode({}) without codes is "missing code".
            CodesAndFormats.DecodedCode d = ops.decodeCode(request.getCode(),
                    "missing code: set DecodeCodeRequest.code");
            return parts(d.parts()).setCode(d.code()).setKeyVersion(d.keyVersion()).build();
        });
    }

    @Override
    public void nextUuids(NextUuidsRequest request, StreamObserver<NextUuidsResponse> out) {
        unary(out, () -> NextUuidsResponse.newBuilder().addAllUuids(Arrays.asList(
                strings(Operation.NEXT_UUIDS, request.hasCount(), request.getCount(),
                        NEXT_UUIDS_FIT))).build());
    }

    @Override
    public void nextFencedUuids(NextFencedUuidsRequest request,
            StreamObserver<NextUuidsResponse> out) {
        String prefix = request.getPrefix();
        int length = prefix.isEmpty() ? 36 : prefix.length() + 1 + 26;
        awaited(out, () -> ops.nextFencedUuids(GrpcCallers.current(), request.hasCount(),
                request.getCount(), prefix, fits(2 + length, "NextFencedUuids",
                        "and call again for more"), Waits.IN_PLACE)
                .thenApply(uuids -> NextUuidsResponse.newBuilder()
                        .addAllUuids(Arrays.asList(uuids)).build()));
    }

    @Override
    public void nextTypedIds(NextTypedIdsRequest request,
            StreamObserver<NextTypedIdsResponse> out) {
        int length = request.getPrefix().length() + 1 + 13;
        awaited(out, () -> ops.nextTypedIds(GrpcCallers.current(), request.hasCount(),
                request.getCount(), request.getPrefix().isEmpty() ? null : request.getPrefix(),
                fits(2 + length, "NextTypedIds", "or use StreamIds and TypedId for more"),
                Waits.IN_PLACE)
                .thenApply(typed -> NextTypedIdsResponse.newBuilder()
                        .addAllIds(Arrays.asList(typed)).build()));
    }

    @Override
    public void nextObjectIds(NextObjectIdsRequest request,
            StreamObserver<NextObjectIdsResponse> out) {
        unary(out, () -> NextObjectIdsResponse.newBuilder().addAllObjectIds(Arrays.asList(
                strings(Operation.NEXT_OBJECT_IDS, request.hasCount(), request.getCount(),
                        NEXT_OBJECT_IDS_FIT))).build());
    }

    @Override
    public void nextFlakes(NextFlakesRequest request, StreamObserver<NextFlakesResponse> out) {
        unary(out, () -> NextFlakesResponse.newBuilder().addAllFlakes(Arrays.asList(
                strings(Operation.NEXT_FLAKES, request.hasCount(), request.getCount(),
                        NEXT_FLAKES_FIT))).build());
    }

    /** NextSegmentIds. */
    private void mintSegmentIds(NextSegmentIdsRequest request,
            StreamObserver<GrpcIdBatch> out) {
        awaited(out, () -> ops.segmentIds(GrpcCallers.current(), request.getTag(),
                request.hasCount(), request.getCount(), NEXT_SEGMENT_IDS_FIT, Waits.IN_PLACE)
                .thenApply(ids -> new GrpcIdBatch(ids, ids.length)));
    }

    @Override
    public void nextSegmentCodes(NextSegmentIdsRequest request,
            StreamObserver<NextCodesResponse> out) {
        awaited(out, () -> ops.segmentCodes(GrpcCallers.current(), request.getTag(),
                request.hasCount(), request.getCount(), NEXT_SEGMENT_CODES_FIT, Waits.IN_PLACE)
                .thenApply(codes -> NextCodesResponse.newBuilder()
                        .addAllCodes(Arrays.asList(codes)).build()));
    }

    @Override
    public void decodeSegmentCode(DecodeSegmentCodeRequest request,
            StreamObserver<DecodeSegmentCodeResponse> out) {
        unary(out, () -> {
            SegmentService.DecodedCode d = ops.decodeSegmentCode(request.getTag(),
                    request.getCode(), "missing code: set DecodeSegmentCodeRequest.code");
            return DecodeSegmentCodeResponse.newBuilder().setTag(d.tag()).setCode(d.code())
                    .setValue(d.value()).setKeyVersion(d.keyVersion()).build();
        });
    }

    @Override
    public void createSegment(CreateSegmentRequest request, StreamObserver<SegmentTag> out) {
        Long start = request.hasStart() ? request.getStart() : null;
        Long step = request.hasStep() ? request.getStep() : null;
        awaited(out, () -> ops.createSegment(request.getTag(), start, step, Waits.IN_PLACE)
                .thenApply(GrpcApi::tag));
    }

    @Override
    public void listSegments(ListSegmentsRequest request,
            StreamObserver<ListSegmentsResponse> out) {
        awaited(out, () -> ops.listSegments(Waits.IN_PLACE).thenApply(tags -> {
            ListSegmentsResponse.Builder b = ListSegmentsResponse.newBuilder();
            tags.forEach(t -> b.addSegments(tag(t)));
            return b.build();
        }));
    }

    @Override
    public void nextSerials(NextSerialsRequest request,
            StreamObserver<NextSerialsResponse> out) {
        awaited(out, () -> ops.nextSerials(GrpcCallers.current(), request.getName(),
                request.hasCount(), request.getCount(), NEXT_SERIALS_FIT, Waits.IN_PLACE)
                .thenApply(values -> NextSerialsResponse.newBuilder()
                        .addAllValues(Arrays.asList(values)).build()));
    }

    @Override
    public void defineSerial(Serial request, StreamObserver<Serial> out) {
        awaited(out, () -> ops.defineSerial(request.getName(), request.getPeriod(),
                request.getZone(), request.getTemplate(),
                request.hasFirst() ? request.getFirst() : null,
                request.hasMaxRate() ? request.getMaxRate() : null,
                request.hasStep() ? request.getStep() : null, Waits.IN_PLACE)
                .thenApply(GrpcApi::serial));
    }

    @Override
    public void listSerials(ListSerialsRequest request,
            StreamObserver<ListSerialsResponse> out) {
        awaited(out, () -> ops.listSerials(Waits.IN_PLACE).thenApply(list -> {
            ListSerialsResponse.Builder b = ListSerialsResponse.newBuilder();
            list.forEach(d -> b.addSerials(serial(d)));
            return b.build();
        }));
    }

    private static Serial serial(io.idmint.segment.SerialDefinition d) {
        return Serial.newBuilder().setName(d.name()).setPeriod(d.period().key())
                .setZone(d.zone().getId()).setTemplate(d.template()).setFirst(d.first())
                .setMaxRate(d.maxRate()).setStep(d.step()).build();
    }

    private static SegmentTag tag(TagInfo t) {
        return SegmentTag.newBuilder().setTag(t.tag()).setNext(t.next()).setStep(t.step())
                .build();
    }

    /** Answers a unary call with what {@code call} returns, or with its failure as a status. */
    private <T> void unary(StreamObserver<T> out, Supplier<T> call) {
        awaited(out, () -> CompletableFuture.completedFuture(call.get()));
    }

    /**
     * Answers a unary call with what the completion {@code call} returns holds, or with what
     * it throws or fails with as a status.
     */
    private <T> void awaited(StreamObserver<T> out, Supplier<CompletionStage<T>> call) {
        CompletionStage<T> response;
        try {
            response = call.get();
        } catch (RuntimeException e) {
            response = CompletableFuture.failedFuture(e);
        }
        response.whenComplete((reply, failure) -> {
            if (failure == null) {
                out.onNext(reply);
                out.onCompleted();
            } else if (Waits.cause(failure) instanceof RuntimeException e) {
                out.onError(GrpcStatus.of(e, pipeline.errors(), "a unary call"));
            } else {
                out.onError(GrpcStatus.of(new IllegalStateException(failure),
                        pipeline.errors(), "a unary call"));
            }
        });
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

    /** UUIDs, ObjectIds or flakes ({@link Calls#nextStrings}) for this call's caller. */
    private String[] strings(Operation op, boolean present, int count, LongConsumer fits) {
        return ops.nextStrings(op, GrpcCallers.current(), present, count, fits);
    }

    /**
     * gRPC's own bound on a unary reply of items of {@code itemBytes} at most, checked after the
     * count is parsed and before it is charged: at most what fits in {@link #MAX_REPLY_BYTES},
     * and held against the server's unread replies ({@link GrpcLimits#reserve}).
     *
     * @param call the call's name, for the message
     * @param more how to get more than one reply holds, for the message
     */
    private static LongConsumer fits(int itemBytes, String call, String more) {
        long most = (MAX_REPLY_BYTES - REPLY_OVERHEAD) / itemBytes;
        return n -> {
            if (n > most) {
                throw new ApiException(Problem.BAD_PARAMETER, "count " + n + " would make a "
                        + call + " reply of up to " + (REPLY_OVERHEAD + n * itemBytes)
                        + " bytes, over the " + MAX_REPLY_BYTES + " bytes (4 MiB) a gRPC client "
                        + "accepts by default; ask for at most " + most + " per call, " + more);
            }
            GrpcLimits.reserve(REPLY_OVERHEAD + n * itemBytes);
        };
    }
}

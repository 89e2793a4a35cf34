package io.idmint.server;

import io.grpc.stub.ServerCallStreamObserver;
import io.idmint.grpc.v1.NextIdsResponse;

/**
 * One StreamIds call, sent batch by batch as flow control allows. Each batch is charged to the
 * caller's rate limit just before it is minted, as if it were a NextIds call: a long stream is
 * throttled like a client polling, and does not need one second's allowance for its whole count
 * up front (which a count above the limit could never get). A batch over the limit ends the
 * stream with RESOURCE_EXHAUSTED; the IDs already sent stand. It mints only while the transport
 * {@linkplain ServerCallStreamObserver#isReady() is ready}, so a slow client holds at most a
 * flow-control window of IDs in flight, and it stops minting when the client cancels.
 */
final class GrpcIdStream implements Runnable {

    private final ServerCallStreamObserver<NextIdsResponse> call;
    private final IdService service;
    private final RequestPipeline pipeline;
    private final RequestPipeline.Caller caller;
    private final int batch;
    private long remaining;
    /**
     * The last ID sent. Batches may be minted on different pool threads (one at a time), so
     * each asks for IDs above it: a striped generator orders per thread only.
     */
    private long last;
    private volatile boolean over;

    /** Starts sending {@code count} IDs in batches of up to {@code batch}. */
    static void start(ServerCallStreamObserver<NextIdsResponse> call, IdService service,
            RequestPipeline pipeline, RequestPipeline.Caller caller, int batch, long count) {
        GrpcIdStream stream = new GrpcIdStream(call, service, pipeline, caller, batch, count);
        // Setting a cancel handler also makes onNext after a cancel a no-op instead of a throw.
        call.setOnCancelHandler(stream::cancel);
        // gRPC runs this once the call can send (also right after this method returns) and
        // again whenever the transport drains; never concurrently with the cancel handler.
        call.setOnReadyHandler(stream);
    }

    private GrpcIdStream(ServerCallStreamObserver<NextIdsResponse> call, IdService service,
            RequestPipeline pipeline, RequestPipeline.Caller caller, int batch, long count) {
        this.call = call;
        this.service = service;
        this.pipeline = pipeline;
        this.caller = caller;
        this.batch = batch;
        this.remaining = count;
    }

    private void cancel() {
        over = true;
    }

    @Override
    public void run() {
        long[] ids = new long[(int) Math.min(batch, remaining)];
        try {
            // isCancelled() sees a client cancel at once, before the cancel handler runs.
            while (!over && remaining > 0 && call.isReady() && !call.isCancelled()) {
                int n = (int) Math.min(ids.length, remaining);
                pipeline.charge(caller, n);
                service.fill(ids, n, last);
                last = ids[n - 1];
                call.onNext(GrpcApi.response(ids, n));
                remaining -= n;
            }
            if (!over && remaining == 0) {
                over = true;
                call.onCompleted();
            }
        } catch (RuntimeException e) {
            if (!over) {
                over = true;
                call.onError(GrpcStatus.of(e));
            }
        }
    }
}

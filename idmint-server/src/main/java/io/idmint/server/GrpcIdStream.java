package io.idmint.server;

import io.grpc.stub.ServerCallStreamObserver;
import io.idmint.grpc.v1.NextIdsResponse;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * One StreamIds call, sent batch by batch as flow control allows. Each batch is charged to the
 * caller's rate limit just before it is minted, as if it were a NextIds call: a long stream is
 * throttled like a client polling, and does not need one second's allowance for its whole count
 * up front (which a count above the limit could never get). A batch the allowance cannot cover
 * yet is not refused: the stream pauses until the allowance holds it (a timer, no thread
 * waits), so a stream over the limit is delivered at the limit (see docs/http-grpc.md). It mints
 * only while the transport {@linkplain ServerCallStreamObserver#isReady() is ready}, so a slow
 * client holds at most a flow-control window of IDs in flight, and it stops minting when the
 * client cancels.
 */
final class GrpcIdStream implements Runnable {

    /** Resumes paused streams: one thread for all, as a batch mints in microseconds. */
    private static final ScheduledExecutorService RESUME =
            Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "idmint-grpc-stream-resume");
                t.setDaemon(true);
                return t;
            });

    private final ServerCallStreamObserver<NextIdsResponse> call;
    private final IdService service;
    private final RequestPipeline pipeline;
    private final RequestPipeline.Caller caller;
    private final int batch;
    private long remaining;
    /**
     * The last ID sent. Batches may be minted on different threads (one at a time), so each
     * asks for IDs above it: a striped generator orders per thread only.
     */
    private long last;
    /** Whether a timer will resume the stream: transport readiness must not run it before. */
    private boolean paused;
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

    /** Transport readiness: sends what it can, unless a timer is due to resume the stream. */
    @Override
    public synchronized void run() {
        if (!paused) {
            send();
        }
    }

    private synchronized void resume() {
        paused = false;
        send();
    }

    // Synchronized callers: the transport's handler and the timer may run at once.
    private void send() {
        long[] ids = new long[(int) Math.min(batch, remaining)];
        try {
            // isCancelled() sees a client cancel at once, before the cancel handler runs.
            while (!over && remaining > 0 && call.isReady() && !call.isCancelled()) {
                int n = (int) Math.min(ids.length, remaining);
                long wait = pipeline.chargeOrWait(caller, n);
                if (wait > 0) {
                    paused = true;
                    RESUME.schedule(this::resume, wait, TimeUnit.NANOSECONDS);
                    return;
                }
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

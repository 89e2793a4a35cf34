package io.idmint.server.grpc;

import io.grpc.Status;
import io.grpc.stub.ServerCallStreamObserver;
import io.idmint.server.api.Calls;
import io.idmint.server.api.RequestPipeline;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
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
 * client cancels. A paused stream resumes on the gRPC call executor, so one stream waiting on
 * the clock holds up no other. When the server stops, {@link Pauses#drain()} ends every paused
 * stream with UNAVAILABLE at once instead of letting it hold the shutdown for its whole grace:
 * the client has the IDs received so far and asks another server for the rest.
 */
public final class GrpcIdStream implements Runnable {

    private final ServerCallStreamObserver<GrpcIdBatch> call;
    /** The operation: each batch is its {@link Calls#streamBatch}. */
    private final Calls ops;
    private final RequestPipeline pipeline;
    private final RequestPipeline.Caller caller;
    /** Every batch, refilled: gRPC has written a batch once {@code onNext} returns. */
    private final long[] ids;
    private final Pauses pauses;
    /** Where a paused stream mints again: the gRPC calls' executor. */
    private final Executor calls;
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
    static void start(ServerCallStreamObserver<GrpcIdBatch> call, Calls ops,
            RequestPipeline pipeline, RequestPipeline.Caller caller, int batch, long count,
            Pauses pauses, Executor calls) {
        GrpcIdStream stream = new GrpcIdStream(call, ops, pipeline, caller, batch, count,
                pauses, calls);
        // Setting a cancel handler also makes onNext after a cancel a no-op instead of a throw.
        call.setOnCancelHandler(stream::cancel);
        // gRPC runs this once the call can send (also right after this method returns) and
        // again whenever the transport drains; never concurrently with the cancel handler.
        call.setOnReadyHandler(stream);
    }

    private GrpcIdStream(ServerCallStreamObserver<GrpcIdBatch> call, Calls ops,
            RequestPipeline pipeline, RequestPipeline.Caller caller, int batch, long count,
            Pauses pauses, Executor calls) {
        this.call = call;
        this.ops = ops;
        this.pipeline = pipeline;
        this.caller = caller;
        this.ids = new long[(int) Math.min(batch, count)];
        this.remaining = count;
        this.pauses = pauses;
        this.calls = calls;
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
        try {
            // isCancelled() sees a client cancel at once, before the cancel handler runs.
            while (!over && remaining > 0 && call.isReady() && !call.isCancelled()) {
                int n = (int) Math.min(ids.length, remaining);
                long wait = ops.streamBatch(caller, ids, n, last);
                if (wait > 0) {
                    paused = pauses.pause(this, wait);
                    if (!paused) {
                        end();
                    }
                    return;
                }
                last = ids[n - 1];
                call.onNext(new GrpcIdBatch(ids, n));
                remaining -= n;
            }
            if (!over && remaining == 0) {
                over = true;
                call.onCompleted();
            }
        } catch (RuntimeException e) {
            if (!over) {
                over = true;
                call.onError(GrpcStatus.of(e, pipeline.errors(), "StreamIds"));
            }
        }
    }

    /** Ends the stream with UNAVAILABLE, unless it has ended: the server is stopping. */
    private synchronized void end() {
        if (!over) {
            over = true;
            call.onError(Status.UNAVAILABLE.withDescription("the server is shutting down; "
                    + remaining + " IDs of this stream were not sent: ask another server for them")
                    .asRuntimeException());
        }
    }

    /**
     * The timer of a server's paused streams, which ends them when the server stops. One thread
     * for all: it only hands each stream back to the call executor when it is due.
     */
    public static final class Pauses {

        private final ScheduledExecutorService timer =
                Executors.newSingleThreadScheduledExecutor(r -> {
                    Thread t = new Thread(r, "idmint-grpc-stream-resume");
                    t.setDaemon(true);
                    return t;
                });
        private final Set<GrpcIdStream> paused = ConcurrentHashMap.newKeySet();
        private boolean draining;

        /** Resumes {@code stream} in {@code nanos}; false when the server is stopping. */
        private synchronized boolean pause(GrpcIdStream stream, long nanos) {
            if (draining) {
                return false;
            }
            paused.add(stream);
            timer.schedule(() -> {
                paused.remove(stream);
                stream.calls.execute(stream::resume);
            }, nanos, TimeUnit.NANOSECONDS);
            return true;
        }

        /** Ends every paused stream, and any that would pause from now on. */
        public void drain() {
            List<GrpcIdStream> ending;
            synchronized (this) {
                draining = true;
                timer.shutdownNow();
                ending = List.copyOf(paused);
            }
            // Outside the lock: a stream pauses holding its own lock, then takes this one.
            ending.forEach(GrpcIdStream::end);
        }
    }
}

package io.idmint.client;

import io.grpc.Status;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import io.idmint.grpc.v1.NextIdsResponse;
import io.idmint.grpc.v1.StreamIdsRequest;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The thread that keeps a {@link PrefetchBuffer} filled (see docs/client.md). It holds one
 * StreamIds call open on the current endpoint and pulls its batches only while the buffer holds
 * fewer IDs than {@link Demand} asks for: the call is flow-controlled, so a full buffer pauses
 * the server's stream instead of piling IDs up. A call that fails, or delivers nothing within
 * the call timeout (a stopped server sends neither IDs nor an error), is given up and the next
 * endpoint asked.
 *
 * <p>Order: IDs are appended only when above the last one appended (unsigned), so the buffer,
 * and every caller, sees them increasing across calls and servers. A server whose IDs stay
 * below for longer than the call timeout (a clock far behind) would starve the client; then the
 * order starts over from its IDs, and {@link #orderingResets()} counts it.
 */
final class Refill implements Runnable {

    private static final System.Logger LOG = System.getLogger(Refill.class.getName());
    /** The count of one StreamIds call: the most the server allows; another follows it. */
    static final long STREAM_COUNT = 100_000_000L;
    private static final long IDLE_PARK_NANOS = TimeUnit.MILLISECONDS.toNanos(50);
    private static final Object DONE = new Object();
    /** Batches asked for ahead of the refill, so that one is waiting when it wants one. */
    static final int AHEAD = 4;

    private final Endpoints endpoints;
    private final PrefetchBuffer buffer;
    private final Demand demand;
    private final long callTimeoutNanos;
    private volatile Thread thread;
    private volatile boolean closed;
    private Call call;
    private boolean any;
    private long last;
    private long droppingSince;
    private boolean dropping;
    private volatile long dropped;
    private volatile long orderingResets;

    Refill(Endpoints endpoints, PrefetchBuffer buffer, Demand demand, long callTimeoutNanos) {
        this.endpoints = endpoints;
        this.buffer = buffer;
        this.demand = demand;
        this.callTimeoutNanos = callTimeoutNanos;
    }

    /**
     * Wakes the thread to look at the buffer again (takers call it; cheap when awake), starting
     * it on the first call: a client used only for segments fetches no IDs.
     */
    void wake() {
        Thread t = thread;
        if (t == null) {
            t = startOnce();
        }
        LockSupport.unpark(t);
    }

    private synchronized Thread startOnce() {
        if (thread == null && !closed) {
            Thread t = new Thread(this, "idmint-client-refill");
            t.setDaemon(true);
            thread = t;
            t.start();
        }
        return thread;
    }

    long dropped() {
        return dropped;
    }

    long orderingResets() {
        return orderingResets;
    }

    @Override
    public void run() {
        try {
            int failuresInRow = 0;
            while (!closed) {
                try {
                    step();
                    failuresInRow = 0;
                } catch (RuntimeException e) {
                    LOG.log(System.Logger.Level.WARNING, "idmint client refill failed", e);
                    if (call != null) {
                        endpoints.failed(call.endpoint, Status.fromThrowable(e), null);
                        giveUp("refill failed");
                    }
                    // Not again at once: a fault that stays would spin and flood the log.
                    LockSupport.parkNanos(this, Endpoints.backoffNanos(++failuresInRow));
                }
            }
        } catch (Error e) {
            LOG.log(System.Logger.Level.ERROR, "idmint client refill died; takers fail now", e);
            buffer.fail(e);
        } finally {
            if (call != null) {
                giveUp(closed ? "client closed" : "refill died");
            }
        }
    }

    private void step() {
        demand.observe(buffer.takenTotal(), System.nanoTime());
        if (buffer.buffered() >= demand.target()) {
            LockSupport.parkNanos(this, IDLE_PARK_NANOS);
            return;
        }
        if (call == null) {
            Endpoint e = endpoints.pick();
            if (e == null) {
                LockSupport.parkNanos(this, Math.min(IDLE_PARK_NANOS, endpoints.untilNext()));
                return;
            }
            call = new Call(e);
            e.async.streamIds(StreamIdsRequest.newBuilder().setCount(STREAM_COUNT).build(),
                    call);
        }
        Object item;
        try {
            item = call.items.poll(callTimeoutNanos, TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            return;
        }
        Endpoint e = call.endpoint;
        if (item instanceof NextIdsResponse batch) {
            if (!call.answered) {
                call.answered = true;
                endpoints.succeeded(e);
            }
            accept(batch);
            call.request(1);
        } else if (item == DONE) {
            call = null;
        } else if (item == null) {
            endpoints.failed(e, Status.DEADLINE_EXCEEDED.withDescription("no IDs within "
                    + TimeUnit.NANOSECONDS.toMillis(callTimeoutNanos) + " ms"), null);
            giveUp("no IDs within the call timeout");
        } else {
            Throwable t = (Throwable) item;
            call = null;
            endpoints.failed(e, Status.fromThrowable(t), Status.trailersFromThrowable(t));
        }
    }

    private void giveUp(String why) {
        call.cancel(why);
        call = null;
    }

    /** Appends the IDs of {@code batch} above the last appended (see the class comment). */
    void accept(NextIdsResponse batch) {
        int n = batch.getIdsCount();
        long[] ids = new long[n];
        int k = 0;
        for (int i = 0; i < n; i++) {
            long id = batch.getIds(i);
            if (!any || Long.compareUnsigned(id, last) > 0) {
                ids[k++] = id;
                last = id;
                any = true;
            }
        }
        if (k < n) {
            dropped += n - k;
            long now = System.nanoTime();
            if (k > 0) {
                dropping = false;
            } else if (!dropping) {
                dropping = true;
                droppingSince = now;
            } else if (now - droppingSince > callTimeoutNanos) {
                orderingResets++;
                dropping = false;
                any = false;
                dropped -= n;
                accept(batch);
                return;
            }
        } else {
            dropping = false;
        }
        buffer.append(ids, k);
    }

    /** Stops the thread and waits up to {@code nanos} for it to end. */
    void close(long nanos) throws InterruptedException {
        Thread t;
        synchronized (this) {
            closed = true;
            t = thread;
        }
        if (t != null) {
            LockSupport.unpark(t);
            t.interrupt();
            TimeUnit.NANOSECONDS.timedJoin(t, nanos);
        }
    }

    /** One StreamIds call: its batches, end or error as items, {@link #AHEAD} asked ahead. */
    private static final class Call
            implements ClientResponseObserver<StreamIdsRequest, NextIdsResponse> {

        final Endpoint endpoint;
        final BlockingQueue<Object> items = new LinkedBlockingQueue<>();
        private ClientCallStreamObserver<StreamIdsRequest> requests;
        boolean answered;

        Call(Endpoint endpoint) {
            this.endpoint = endpoint;
        }

        @Override
        public void beforeStart(ClientCallStreamObserver<StreamIdsRequest> requests) {
            this.requests = requests;
            requests.disableAutoRequestWithInitial(AHEAD);
        }

        void request(int n) {
            requests.request(n);
        }

        void cancel(String why) {
            requests.cancel(why, null);
        }

        @Override
        public void onNext(NextIdsResponse value) {
            items.add(value);
        }

        @Override
        public void onError(Throwable t) {
            items.add(t);
        }

        @Override
        public void onCompleted() {
            items.add(DONE);
        }
    }
}

package io.idmint.server.grpc;

import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.ForwardingServerCallListener;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallExecutorSupplier;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.netty.NettyServerBuilder;
import io.idmint.server.api.ApiException;
import io.idmint.server.api.Problem;
import io.idmint.server.net.ConnectionLimit;
import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.vertx.core.internal.VertxInternal;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * What one gRPC server holds for its callers, bounded: connections ({@link ConnectionLimit},
 * checked as each is accepted), and the bytes of replies a caller has not read yet. gRPC's
 * flow control stops a reply at the client's window, so an unread reply stays in this process
 * until the call ends: each call reserves {@value #CALL_BYTES} bytes when it starts, and a call
 * that mints reserves the most its reply can take before it mints anything
 * ({@link #reserve}). Past {@code maxBuffered}, a call is answered UNAVAILABLE with
 * {@code retry-after} (a client fails over to another server), and nothing is minted for it.
 * The reservation is given back when the call completes or is cancelled.
 *
 * <p>Calls run on a fixed pool of threads ({@link #calls()}), and the calls waiting for one are
 * bounded too (grpc.max-waiting-calls): past them, a new call is answered UNAVAILABLE with
 * {@code retry-after} on the event loop, before it reaches a thread or any interceptor behind
 * this one. A flood of calls then leaves short-lived garbage rather than a queue of live call
 * states, whose copying from one collection to the next made GC pauses of 0.14–0.19 s under
 * 20,000 unread calls (scripts/attack on two cores).
 */
public final class GrpcLimits implements ServerInterceptor {

    /** What a call holds besides its reply: the stream's state, headers and trailers. */
    static final int CALL_BYTES = 4096;
    /** The largest request message read: requests hold a count, an ID, a code or a tag. */
    static final int MAX_REQUEST_BYTES = 64 * 1024;

    private static final Context.Key<Reservation> RESERVATION = Context.key("idmint-reserved");
    /**
     * Set by {@link #executorFor} on a call it refuses; any value a caller sent is dropped
     * first, so only this server can set it.
     */
    private static final Metadata.Key<String> REFUSED =
            Metadata.Key.of("idmint-refused", Metadata.ASCII_STRING_MARSHALLER);

    private final ConnectionLimit connections;
    private final java.time.Duration idleTimeout;
    private final int callsPerConnection;
    private final int maxWaiting;
    private final long maxBuffered;
    private final EventLoopGroup acceptor;
    private final EventLoopGroup loops;
    private final ThreadPoolExecutor calls = pool();
    private final AtomicLong buffered = new AtomicLong();
    private final LongAdder refused = new LongAdder();
    private final LongAdder refusedWaiting = new LongAdder();

    /**
     * @param connections the connection limit, whose idle timeout closes a connection with no
     *     call
     * @param callsPerConnection the most calls in flight on one connection
     * @param maxWaiting the most calls waiting for a thread of {@link #calls()}
     * @param maxBuffered the most reply bytes held for callers at once
     * @param loops the event loops the server's sockets run on (Vert.x's, so that the process
     *     has one set of loops and gRPC leaves none to shut down)
     */
    public GrpcLimits(ConnectionLimit connections, int callsPerConnection, int maxWaiting,
            long maxBuffered, VertxInternal loops) {
        this.connections = connections;
        this.idleTimeout = connections.idleTimeout();
        this.callsPerConnection = callsPerConnection;
        this.maxWaiting = maxWaiting;
        this.maxBuffered = maxBuffered;
        this.acceptor = loops.acceptorEventLoopGroup();
        this.loops = loops.eventLoopGroup();
    }

    /**
     * Sets the limits, the event loops and the call threads on {@code builder}. The executor
     * proper runs only the method lookup and {@link #executorFor}, on the event loop; each call
     * then runs on {@link #calls()}, or is refused where it stands.
     */
    NettyServerBuilder applyTo(NettyServerBuilder builder) {
        return builder.channelFactory(LimitedChannel::new)
                .bossEventLoopGroup(acceptor)
                .workerEventLoopGroup(loops)
                .executor(Runnable::run)
                .callExecutor(new ServerCallExecutorSupplier() {
                    @Override
                    public <Q, R> Executor getExecutor(ServerCall<Q, R> call, Metadata headers) {
                        return executorFor(call.getMethodDescriptor().getServiceName(), headers);
                    }
                })
                .maxConnectionIdle(idleTimeout.toNanos(), TimeUnit.NANOSECONDS)
                .maxConcurrentCallsPerConnection(callsPerConnection)
                .maxInboundMessageSize(MAX_REQUEST_BYTES)
                .intercept(this);
    }

    /**
     * The threads calls run on: off Netty's event loops, because minting may wait for the next
     * tick (up to a second with {@code tick=1s}). Idle threads end by themselves, so a stopped
     * server leaves none behind.
     */
    public Executor calls() {
        return calls;
    }

    /**
     * Where a new call runs: on {@link #calls()}, or, with {@code maxWaiting} calls waiting
     * there already, right here, marked for {@link #interceptCall} to refuse. Health
     * checks always run here, never refused: they only read a status, and a probe that a flood
     * of calls refused would have the orchestrator restart a server that works.
     */
    Executor executorFor(String service, Metadata headers) {
        headers.discardAll(REFUSED);
        if (HealthGrpc.SERVICE_NAME.equals(service)) {
            return Runnable::run;
        }
        if (calls.getQueue().size() < maxWaiting) {
            return calls;
        }
        headers.put(REFUSED, "waiting");
        return Runnable::run;
    }

    /** Calls refused because the most were waiting for a thread. */
    public long refusedWaiting() {
        return refusedWaiting.sum();
    }

    /** The bytes reserved for replies now. */
    public long buffered() {
        return buffered.get();
    }

    /** Calls refused for want of room since start. */
    public long refused() {
        return refused.sum();
    }

    /**
     * Reserves {@code bytes} more for the reply of the call running on this thread.
     *
     * @throws ApiException OVERLOADED when the server holds its most already
     */
    static void reserve(long bytes) {
        Reservation r = RESERVATION.get();
        if (r != null) {
            r.take(bytes);
        }
    }

    @Override
    public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
            ServerCallHandler<Q, R> next) {
        Reservation r = new Reservation();
        try {
            if (headers.containsKey(REFUSED)) {
                refusedWaiting.increment();
                throw new ApiException(Problem.OVERLOADED, "this server has " + maxWaiting
                        + " calls waiting for a thread, its most (grpc.max-waiting-calls); retry",
                        1);
            }
            r.take(CALL_BYTES);
        } catch (ApiException e) {
            io.grpc.StatusRuntimeException status = GrpcStatus.of(e, null, null);
            call.close(status.getStatus(), status.getTrailers());
            return new ServerCall.Listener<>() { };
        }
        ServerCall.Listener<Q> listener;
        try {
            listener = Contexts.interceptCall(Context.current().withValue(RESERVATION, r), call,
                    headers, next);
        } catch (RuntimeException e) {
            r.release();
            throw e;
        }
        return new ForwardingServerCallListener.SimpleForwardingServerCallListener<>(listener) {
            @Override
            public void onComplete() {
                try {
                    super.onComplete();
                } finally {
                    r.release();
                }
            }

            @Override
            public void onCancel() {
                try {
                    super.onCancel();
                } finally {
                    r.release();
                }
            }
        };
    }

    private static ThreadPoolExecutor pool() {
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

    /** The bytes one call holds. */
    private final class Reservation {
        private long held;

        synchronized void take(long bytes) {
            long now = buffered.get();
            while (true) {
                if (now + bytes > maxBuffered) {
                    refused.increment();
                    throw new ApiException(Problem.OVERLOADED, "this server holds "
                            + (now >> 20) + " MiB of replies its callers have not read yet, its "
                            + "most (grpc.max-buffered); retry, or read the replies of calls "
                            + "in flight", 1);
                }
                long seen = buffered.compareAndExchange(now, now + bytes);
                if (seen == now) {
                    held += bytes;
                    return;
                }
                now = seen;
            }
        }

        synchronized void release() {
            buffered.addAndGet(-held);
            held = 0;
        }
    }

    /**
     * Takes a place in the connection limit for each connection accepted, or closes it before
     * gRPC sees it; the place is given back when the connection closes.
     */
    private final class LimitedChannel extends NioServerSocketChannel {
        @Override
        protected int doReadMessages(List<Object> buf) throws Exception {
            int before = buf.size();
            int n = super.doReadMessages(buf);
            for (int i = buf.size() - 1; i >= before; i--) {
                Channel child = (Channel) buf.get(i);
                ConnectionLimit.Slot slot = connections.open(child::close, false);
                if (slot == null) {
                    buf.remove(i);
                    n--;
                    child.unsafe().closeForcibly();
                } else {
                    child.closeFuture().addListener(f -> slot.release());
                }
            }
            return n;
        }
    }
}

package io.idmint.server.grpc;

import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.ForwardingServerCallListener;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.netty.NettyServerBuilder;
import io.idmint.server.api.ApiException;
import io.idmint.server.api.Problem;
import io.idmint.server.net.ConnectionLimit;
import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.vertx.core.internal.VertxInternal;
import java.util.List;
import java.util.concurrent.TimeUnit;
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
 */
public final class GrpcLimits implements ServerInterceptor {

    /** What a call holds besides its reply: the stream's state, headers and trailers. */
    static final int CALL_BYTES = 4096;
    /** The largest request message read: requests hold a count, an ID, a code or a tag. */
    static final int MAX_REQUEST_BYTES = 64 * 1024;

    private static final Context.Key<Reservation> RESERVATION = Context.key("idmint-reserved");

    private final ConnectionLimit connections;
    private final java.time.Duration idleTimeout;
    private final int callsPerConnection;
    private final long maxBuffered;
    private final EventLoopGroup acceptor;
    private final EventLoopGroup loops;
    private final AtomicLong buffered = new AtomicLong();
    private final LongAdder refused = new LongAdder();

    /**
     * @param connections the connection limit, whose idle timeout closes a connection with no
     *     call
     * @param callsPerConnection the most calls in flight on one connection
     * @param maxBuffered the most reply bytes held for callers at once
     * @param loops the event loops the server's sockets run on (Vert.x's, so that the process
     *     has one set of loops and gRPC leaves none to shut down)
     */
    public GrpcLimits(ConnectionLimit connections, int callsPerConnection, long maxBuffered,
            VertxInternal loops) {
        this.connections = connections;
        this.idleTimeout = connections.idleTimeout();
        this.callsPerConnection = callsPerConnection;
        this.maxBuffered = maxBuffered;
        this.acceptor = loops.acceptorEventLoopGroup();
        this.loops = loops.eventLoopGroup();
    }

    /** Sets the limits and the event loops on {@code builder}. */
    NettyServerBuilder applyTo(NettyServerBuilder builder) {
        return builder.channelFactory(LimitedChannel::new)
                .bossEventLoopGroup(acceptor)
                .workerEventLoopGroup(loops)
                .maxConnectionIdle(idleTimeout.toNanos(), TimeUnit.NANOSECONDS)
                .maxConcurrentCallsPerConnection(callsPerConnection)
                .maxInboundMessageSize(MAX_REQUEST_BYTES)
                .intercept(this);
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

package io.idmint.server.net;

import io.idmint.TimeSource;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The most connections one transport holds at once, so that callers can never take the file
 * descriptors the worker lease needs (its store connections and state files). At the limit a
 * new connection takes the place of the oldest one that has no request in flight, which is
 * closed (HTTP: a flood of idle or slowly-sent connections cannot keep a prober out); when every
 * connection is busy, the new one is closed at once. gRPC connections are never taken over
 * (they are closed by gRPC's own idle timer), so there a full table refuses.
 *
 * <p>Thread-safe: connections open and close on many event loops.
 */
public final class ConnectionLimit {

    /** Why a connection was closed by the server: the label of the metric. */
    public enum Closed {
        /** Past the limit with every connection busy: closed right after accept. */
        REFUSED,
        /** The oldest idle connection, closed to make room for a new one at the limit. */
        EVICTED,
        /** No request in flight for the idle timeout (or a request head sent too slowly). */
        IDLE
    }

    /** Counts what this limit closes, by transport and reason. */
    @FunctionalInterface
    public interface Listener {
        void closed(String transport, Closed reason);
    }

    /** One open connection. */
    public final class Slot {
        private final Runnable closer;
        private final boolean evictable;
        private final AtomicBoolean released = new AtomicBoolean();
        /** Requests in flight; written by the connection's own event loop only. */
        private volatile int inFlight;
        /** When the last request ended, or the connection opened. */
        private volatile long idleSince;

        private Slot(Runnable closer, boolean evictable, long nowNanos) {
            this.closer = closer;
            this.evictable = evictable;
            this.idleSince = nowNanos;
        }

        /** A request started on this connection. */
        public void started() {
            inFlight++;
        }

        /** A request on this connection was answered. */
        public void ended() {
            idleSince = time.nanoTime();
            inFlight--;
        }

        /** Whether no request is in flight. */
        boolean idle() {
            return inFlight <= 0;
        }

        /** Gives the connection's place back; safe to call more than once. */
        public void release() {
            if (released.compareAndSet(false, true)) {
                open.decrementAndGet();
                if (dead.incrementAndGet() > Math.max(64, open.get())) {
                    dead.set(0);
                    order.removeIf(s -> s.released.get());
                }
            }
        }

        /** Closes the connection for {@code reason}, counting it. */
        void close(Closed reason) {
            if (!released.get()) {
                listener.closed(transport, reason);
                release();
                closer.run();
            }
        }
    }

    private final String transport;
    private final TimeSource time;
    private final int max;
    private final java.time.Duration idleTimeout;
    private final Listener listener;
    private final AtomicInteger open = new AtomicInteger();
    /** Released slots still in {@link #order}, swept out once they outnumber the open ones. */
    private final AtomicInteger dead = new AtomicInteger();
    /** Open slots, oldest first (released ones are skipped and swept). */
    private final Queue<Slot> order = new ConcurrentLinkedQueue<>();

    /**
     * @param transport the metric label: http or grpc
     * @param max the most connections open at once, at least 1
     * @param idleTimeout how long a connection may have no request in flight
     */
    public ConnectionLimit(String transport, int max, java.time.Duration idleTimeout,
            TimeSource time, Listener listener) {
        if (max < 1) {
            throw new IllegalArgumentException("max connections must be at least 1, got " + max);
        }
        this.transport = transport;
        this.time = time;
        this.max = max;
        this.idleTimeout = idleTimeout;
        this.listener = listener;
    }

    /** The most connections open at once. */
    int max() {
        return max;
    }

    /** How long a connection may have no request in flight. */
    public java.time.Duration idleTimeout() {
        return idleTimeout;
    }

    /** Connections open now. */
    public int open() {
        return open.get();
    }

    /**
     * Takes a place for a new connection, making room by closing the oldest idle one when the
     * table is full.
     *
     * @param closer closes the new connection when it is evicted later
     * @param evictable whether the connection may be closed to make room for another
     * @return its slot, or null when it must be closed now (counted as refused)
     */
    public Slot open(Runnable closer, boolean evictable) {
        while (true) {
            int n = open.get();
            if (n < max) {
                if (open.compareAndSet(n, n + 1)) {
                    Slot s = new Slot(closer, evictable, time.nanoTime());
                    order.add(s);
                    return s;
                }
            } else if (!evictOldestIdle()) {
                listener.closed(transport, Closed.REFUSED);
                return null;
            }
        }
    }

    /**
     * Closes every connection that has had no request in flight for the idle timeout: kept
     * alive and unused, never sent a whole request head (slowloris), or left a response
     * unread.
     */
    public void closeIdle() {
        long now = time.nanoTime();
        long idleNanos = idleTimeout.toNanos();
        for (Slot s : order) {
            if (s.idle() && now - s.idleSince > idleNanos) {
                s.close(Closed.IDLE);
            }
        }
    }

    /** Closes the oldest open connection with no request in flight; false when there is none. */
    private boolean evictOldestIdle() {
        // Busy ones go to the back; one pass over the table at most.
        for (int i = 0; i <= max; i++) {
            Slot s = order.poll();
            if (s == null) {
                return false;
            }
            if (s.released.get()) {
                dead.decrementAndGet();
                continue;
            }
            if (s.evictable && s.idle()) {
                s.close(Closed.EVICTED);
                return true;
            }
            order.add(s);
        }
        return false;
    }
}

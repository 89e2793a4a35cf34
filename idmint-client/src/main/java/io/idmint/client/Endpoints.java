package io.idmint.client;

import io.grpc.Metadata;
import io.grpc.Status;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Which of the client's servers to ask now, for one user of them (the ID refill, or one
 * segment tag), see docs/client.md, "Failover". It stays on one endpoint while it answers and
 * moves to the next in order when it fails. A failed endpoint is not asked again before its
 * {@code retry-after} trailer says (whole seconds), or, without one, before a backoff that
 * starts at 250 ms and doubles with each failure in a row up to 8 s; one success clears it.
 */
final class Endpoints {

    /** The gRPC trailer in which a server says how many seconds to stay away. */
    static final Metadata.Key<String> RETRY_AFTER =
            Metadata.Key.of("retry-after", Metadata.ASCII_STRING_MARSHALLER);
    static final long FIRST_BACKOFF_NANOS = TimeUnit.MILLISECONDS.toNanos(250);
    static final long MAX_BACKOFF_NANOS = TimeUnit.SECONDS.toNanos(8);

    /** One endpoint's failures, as this user saw them. */
    private static final class Health {
        /** Failures since its last success; the backoff doubles with each. */
        int failures;
        /** Not to be asked before this nanoTime. */
        long avoidUntil;
        String lastFailure = "none";

        Health(long now) {
            this.avoidUntil = now;
        }
    }

    private final List<Endpoint> all;
    private final Health[] health;
    private final LongSupplier nanoTime;
    private int current;
    private long failovers;

    Endpoints(List<Endpoint> all, LongSupplier nanoTime) {
        this.all = List.copyOf(all);
        this.health = new Health[all.size()];
        this.nanoTime = nanoTime;
        long now = nanoTime.getAsLong();
        for (int i = 0; i < health.length; i++) {
            health[i] = new Health(now);
        }
    }

    /**
     * The endpoint to ask now: the current one unless it is being avoided, else the next one in
     * order that is not; null when every endpoint is being avoided.
     */
    synchronized Endpoint pick() {
        long now = nanoTime.getAsLong();
        for (int k = 0; k < all.size(); k++) {
            int i = (current + k) % all.size();
            Health h = health[i];
            if (now - h.avoidUntil >= 0) {
                current = i;
                return all.get(i);
            }
        }
        return null;
    }

    /** Nanoseconds until some endpoint may be asked again (0 when one may be now). */
    synchronized long untilNext() {
        long now = nanoTime.getAsLong();
        long least = Long.MAX_VALUE;
        for (Health h : health) {
            least = Math.min(least, Math.max(0, h.avoidUntil - now));
        }
        return least;
    }

    /** {@code e} answered: its backoff starts over. */
    synchronized void succeeded(Endpoint e) {
        health[all.indexOf(e)].failures = 0;
    }

    /**
     * {@code e} failed with {@code status}: it is avoided for the {@code retry-after} of
     * {@code trailers} (null when there are none) or else its backoff, and the next endpoint
     * becomes the current one.
     */
    synchronized void failed(Endpoint e, Status status, Metadata trailers) {
        int i = all.indexOf(e);
        Health h = health[i];
        h.failures++;
        long seconds = retryAfterSeconds(trailers);
        long wait = seconds > 0 ? TimeUnit.SECONDS.toNanos(seconds) : backoffNanos(h.failures);
        h.avoidUntil = nanoTime.getAsLong() + wait;
        h.lastFailure = status.getCode() + (status.getDescription() == null ? ""
                : ": " + status.getDescription())
                + (seconds > 0 ? " (retry after " + seconds + " s)" : "");
        if (current == i && all.size() > 1) {
            current = (i + 1) % all.size();
            failovers++;
        }
    }

    /**
     * The wait after {@code failuresInRow} failures in a row (1 or more): 250 ms, doubling with
     * each further failure up to 8 s.
     */
    static long backoffNanos(int failuresInRow) {
        return Math.min(MAX_BACKOFF_NANOS,
                FIRST_BACKOFF_NANOS << Math.min(Math.max(failuresInRow, 1) - 1, 6));
    }

    /** How many times a failure moved this user to the next endpoint. */
    /**
     * Calls {@code rpc} on the endpoints in order, failing over as the ID refill does, until one
     * answers with a result that {@code usable} accepts, or the deadline {@code end} (a
     * {@code System.nanoTime()}) passes. NOT_FOUND and INVALID_ARGUMENT are the caller's
     * mistake, not an endpoint's: thrown at once as {@link IllegalArgumentException}.
     *
     * @param what the thing asked for, for messages: {@code "segment tag 'order'"}
     * @param none what a caller did not get, for messages: {@code "no ID of segment tag
     *     'order'"}
     * @throws IdServiceUnavailableException when no endpoint answered by the deadline
     */
    <T> T call(long end, Duration deadline, long callTimeoutNanos, String what, String none,
            java.util.function.BiFunction<Endpoint, Long, T> rpc,
            java.util.function.Predicate<T> usable) {
        while (true) {
            long left = end - System.nanoTime();
            if (left <= 0) {
                throw unavailable(none, deadline);
            }
            Endpoint e = pick();
            if (e == null) {
                sleepNanos(Math.min(left, untilNext()));
                continue;
            }
            try {
                T result = rpc.apply(e, Math.min(left, callTimeoutNanos));
                if (usable.test(result)) {
                    succeeded(e);
                    return result;
                }
                // Backed off like a failure, not asked again at once until the deadline.
                failed(e, Status.UNAVAILABLE.withDescription("answered " + none), null);
            } catch (io.grpc.StatusRuntimeException x) {
                Status s = x.getStatus();
                if (s.getCode() == Status.Code.NOT_FOUND) {
                    throw new IllegalArgumentException("unknown " + what + " at " + e.target
                            + ": " + s.getDescription(), x);
                }
                if (s.getCode() == Status.Code.INVALID_ARGUMENT) {
                    throw new IllegalArgumentException(what + " refused by " + e.target + ": "
                            + s.getDescription(), x);
                }
                failed(e, s, x.getTrailers());
            }
        }
    }

    private static void sleepNanos(long nanos) {
        try {
            java.util.concurrent.TimeUnit.NANOSECONDS.sleep(nanos);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for a server", e);
        }
    }

    synchronized long failovers() {
        return failovers;
    }

    /** The exception for a caller that got {@code what} within {@code deadline}. */
    synchronized IdServiceUnavailableException unavailable(String what, Duration deadline) {
        Map<String, String> failures = new LinkedHashMap<>();
        for (int i = 0; i < all.size(); i++) {
            failures.put(all.get(i).target, health[i].lastFailure);
        }
        return new IdServiceUnavailableException(what, deadline,
                Collections.unmodifiableMap(failures));
    }

    /** The whole seconds of a {@code retry-after} trailer; 0 when absent or not a number. */
    static long retryAfterSeconds(Metadata trailers) {
        String value = trailers == null ? null : trailers.get(RETRY_AFTER);
        if (value == null) {
            return 0;
        }
        try {
            return Math.max(0, Long.parseLong(value.trim()));
        } catch (NumberFormatException e) {
            return 0;
        }
    }
}

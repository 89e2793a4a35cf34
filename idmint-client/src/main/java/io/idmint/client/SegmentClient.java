package io.idmint.client;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.idmint.grpc.v1.NextIdsResponse;
import io.idmint.grpc.v1.NextSegmentIdsRequest;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * The IDs of one segment tag (a dense per-tag sequence), from {@link IdClient#segment(String)}:
 * a small buffer filled by NextSegmentIds, with the client's failover (see docs/client.md,
 * "Segments"). IDs are increasing within what one server hands out; across a failover they are
 * unique but may go back, since each server draws its own ranges of the tag.
 */
public final class SegmentClient {

    private final String tag;
    private final Endpoints endpoints;
    private final int batch;
    private final Duration deadline;
    private final long callTimeoutNanos;
    private long[] ids = new long[0];
    private int next;

    SegmentClient(String tag, Endpoints endpoints, int batch, Duration deadline,
            long callTimeoutNanos) {
        this.tag = tag;
        this.endpoints = endpoints;
        this.batch = batch;
        this.deadline = deadline;
        this.callTimeoutNanos = callTimeoutNanos;
    }

    /** The tag this hands out IDs of. */
    public String tag() {
        return tag;
    }

    /**
     * The next ID of this tag, from the buffer or, when it is empty, from a server within the
     * client's deadline.
     *
     * @throws IllegalArgumentException when a server does not know the tag (NOT_FOUND) or
     *     refuses its name (INVALID_ARGUMENT)
     * @throws IdServiceUnavailableException when no endpoint answered within the deadline
     */
    public synchronized long next() {
        if (next == ids.length) {
            fill();
        }
        return ids[next++];
    }

    private void fill() {
        long end = System.nanoTime() + deadline.toNanos();
        NextSegmentIdsRequest request = NextSegmentIdsRequest.newBuilder().setTag(tag)
                .setCount(batch).build();
        while (true) {
            long left = end - System.nanoTime();
            if (left <= 0) {
                throw endpoints.unavailable("no ID of segment tag '" + tag + "'", deadline);
            }
            Endpoint e = endpoints.pick();
            if (e == null) {
                waitNanos(Math.min(left, endpoints.untilNext()));
                continue;
            }
            try {
                NextIdsResponse r = e.blocking
                        .withDeadlineAfter(Math.min(left, callTimeoutNanos), TimeUnit.NANOSECONDS)
                        .nextSegmentIds(request);
                endpoints.succeeded(e);
                if (r.getIdsCount() > 0) {
                    ids = r.getIdsList().stream().mapToLong(Long::longValue).toArray();
                    next = 0;
                    return;
                }
            } catch (StatusRuntimeException x) {
                Status s = x.getStatus();
                if (s.getCode() == Status.Code.NOT_FOUND) {
                    throw new IllegalArgumentException("unknown segment tag '" + tag + "' at "
                            + e.target + ": " + s.getDescription(), x);
                }
                if (s.getCode() == Status.Code.INVALID_ARGUMENT) {
                    throw new IllegalArgumentException("segment tag '" + tag + "' refused by "
                            + e.target + ": " + s.getDescription(), x);
                }
                endpoints.failed(e, s, x.getTrailers());
            }
        }
    }

    private static void waitNanos(long nanos) {
        try {
            TimeUnit.NANOSECONDS.sleep(nanos);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for a segment ID", e);
        }
    }
}

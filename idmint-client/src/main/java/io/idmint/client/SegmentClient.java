package io.idmint.client;

import io.idmint.grpc.v1.NextIdsResponse;
import io.idmint.grpc.v1.NextSegmentIdsRequest;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

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
    private final ReentrantLock lock = new ReentrantLock();

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
    public long next() {
        // The deadline starts at the call, not when a caller queued behind a fill gets its turn.
        long end = System.nanoTime() + deadline.toNanos();
        try {
            if (!lock.tryLock(deadline.toNanos(), TimeUnit.NANOSECONDS)) {
                throw endpoints.unavailable("no ID of segment tag '" + tag + "'", deadline);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for a segment ID", e);
        }
        try {
            if (next == ids.length) {
                fill(end);
            }
            return ids[next++];
        } finally {
            lock.unlock();
        }
    }

    private void fill(long end) {
        NextSegmentIdsRequest request = NextSegmentIdsRequest.newBuilder().setTag(tag)
                .setCount(batch).build();
        NextIdsResponse r = endpoints.call(end, deadline, callTimeoutNanos,
                "segment tag '" + tag + "'", "no ID of segment tag '" + tag + "'",
                (e, timeout) -> e.blocking
                        .withDeadlineAfter(timeout, TimeUnit.NANOSECONDS)
                        .nextSegmentIds(request),
                response -> response.getIdsCount() > 0);
        ids = r.getIdsList().stream().mapToLong(Long::longValue).toArray();
        next = 0;
    }
}

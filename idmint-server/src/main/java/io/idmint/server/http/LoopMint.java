package io.idmint.server.http;

import io.idmint.IdUnavailableException;
import io.idmint.IdUnavailableException.Reason;
import io.idmint.TimeSource;
import io.idmint.server.api.IdService;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Arrays;

/**
 * Snowflake IDs for an HTTP event loop, which never waits for the clock (docs/http-grpc.md,
 * "Batches and the event loop"). {@link #now} takes what the clock allows into a reused array.
 * When a tick's sequence runs out before the count (a batch at the cap, or a clock a little
 * behind the last ID), {@link #later} queues the request; one worker thread per loop then waits
 * for the time source's next millisecond (a precise park, as the generator's own wait), and the
 * loop takes the rest for every queued request in arrival order, again a tick later for those
 * still short, and completes each when it is whole. Meanwhile the loop serves its other
 * connections. One instance per event loop: only that loop touches it.
 */
final class LoopMint {

    private final IdService service;
    private final TimeSource time;
    private long[] ids = new long[1024];
    /** Requests waiting for a later tick, in arrival order. */
    private final ArrayDeque<Waiting> waiting = new ArrayDeque<>();

    LoopMint(IdService service, TimeSource time) {
        this.service = service;
        this.time = time;
    }

    /**
     * Takes up to {@code n} IDs into {@link #ids()} without waiting and returns how many; fewer
     * than {@code n} means: finish with {@link #later}.
     */
    int now(int n) {
        if (ids.length < n) {
            ids = new long[Math.max(n, Math.min(ids.length * 2, service.maxCount()))];
        }
        return service.fillNow(ids, 0, n);
    }

    /** What {@link #now} took, from index 0; valid until the loop's next request. */
    long[] ids() {
        return ids;
    }

    /**
     * Finishes a request that {@link #now} left at {@code taken} of {@code n} IDs: takes the
     * rest, every ID above those taken, a tick later or more.
     *
     * @return the whole batch, on this event loop; or the generator's refusal (or, when the
     *     server closes first, {@link Reason#CLOSED})
     */
    Future<long[]> later(int taken, int n) {
        Waiting w = new Waiting(Arrays.copyOf(ids, n), taken);
        waiting.add(w);
        if (waiting.size() == 1) {
            awaitTick(Vertx.currentContext());
        }
        return w.whole.future();
    }

    private void awaitTick(Context loop) {
        long next = time.currentTimeMillis() + 1;
        loop.executeBlocking(() -> {
            time.awaitMillis(next);
            return null;
        }, false).onComplete(woke -> {
            // Back on the loop. A wait that failed (the server is closing) ends the requests.
            for (int k = waiting.size(); k > 0; k--) {
                Waiting w = waiting.poll();
                if (!w.resume(woke.failed())) {
                    waiting.add(w);
                }
            }
            if (!waiting.isEmpty()) {
                awaitTick(loop);
            }
        });
    }

    /** One request short of IDs. */
    private final class Waiting {
        private final long[] batch;
        private int taken;
        private final Promise<long[]> whole = Promise.promise();

        Waiting(long[] batch, int taken) {
            this.batch = batch;
            this.taken = taken;
        }

        /**
         * Takes what it can; completes and returns true once whole or failed, or, when
         * {@code last}, short (the server is closing).
         */
        boolean resume(boolean last) {
            try {
                taken = service.fillNow(batch, taken, batch.length);
                if (taken < batch.length) {
                    if (!last) {
                        return false;
                    }
                    throw new IdUnavailableException(Reason.CLOSED, "the server is closing; "
                            + "ask another server", Duration.ofSeconds(1));
                }
                whole.complete(batch);
            } catch (RuntimeException e) {
                whole.fail(e);
            }
            return true;
        }
    }
}

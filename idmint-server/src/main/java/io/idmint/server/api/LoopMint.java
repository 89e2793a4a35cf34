package io.idmint.server.api;

import io.idmint.IdUnavailableException;
import io.idmint.IdUnavailableException.Reason;
import io.idmint.TimeSource;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * The mint step of snowflake IDs for a thread that must never wait: an HTTP event loop
 * (docs/http-grpc.md, "Batches and the event loop"). It takes what the clock allows at once
 * into a reused array. When a tick's sequence runs out before the count (a batch at the cap,
 * or a clock a little behind the last ID), the request waits in a queue; a thread where waiting
 * is allowed ({@link Waits}) waits for the time source's next millisecond (a precise park, as
 * the generator's own wait), and back on the loop the rest is taken for every queued request in
 * arrival order, again a tick later for those still short, and each completes when it is whole.
 * Meanwhile the loop serves its other connections. One instance per event loop: only that loop
 * touches it.
 *
 * <p>The batch made at once is this object itself, completed once when it was made: the hot
 * path allocates nothing here.
 */
public final class LoopMint implements IdBatch {

    private final IdService service;
    private final TimeSource time;
    private final Waits waits;
    private final CompletableFuture<IdBatch> now = CompletableFuture.completedFuture(this);
    private long[] ids = new long[1024];
    private int count;
    /** Requests waiting for a later tick, in arrival order. */
    private final ArrayDeque<Waiting> waiting = new ArrayDeque<>();

    /** @param waits where the wait for the clock's next tick runs, called back on the loop */
    public LoopMint(IdService service, TimeSource time, Waits waits) {
        this.service = service;
        this.time = time;
        this.waits = waits;
    }

    /**
     * Mints {@code n} IDs (the count was checked and charged).
     *
     * @return done at once with this loop's reused batch (valid until the loop's next request)
     *     when the clock allows them now; else the whole batch a tick later or more, on the
     *     loop, or the generator's refusal (or, when the server closes first,
     *     {@link Reason#CLOSED})
     * @throws IdUnavailableException when the generator refuses at once
     */
    CompletionStage<IdBatch> mint(int n) {
        if (ids.length < n) {
            ids = new long[Math.max(n, Math.min(ids.length * 2, service.maxCount()))];
        }
        int taken = service.fillNow(ids, 0, n);
        if (taken == n) {
            count = n;
            return now;
        }
        Waiting w = new Waiting(Arrays.copyOf(ids, n), taken);
        waiting.add(w);
        if (waiting.size() == 1) {
            awaitTick();
        }
        return w.whole;
    }

    @Override
    public long[] ids() {
        return ids;
    }

    @Override
    public int count() {
        return count;
    }

    private void awaitTick() {
        long next = time.currentTimeMillis() + 1;
        CompletionStage<Void> tick;
        try {
            tick = waits.run(() -> {
                try {
                    time.awaitMillis(next);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IdUnavailableException(Reason.INTERRUPTED, "interrupted while "
                            + "waiting for the clock's next millisecond", Duration.ofSeconds(1));
                }
                return null;
            });
        } catch (RuntimeException e) {
            tick = CompletableFuture.failedFuture(e);
        }
        tick.whenComplete((woke, failed) -> {
            // Back on the loop. A wait that failed (the server is closing) ends the requests.
            for (int k = waiting.size(); k > 0; k--) {
                Waiting w = waiting.poll();
                if (!w.resume(failed != null)) {
                    waiting.add(w);
                }
            }
            if (!waiting.isEmpty()) {
                awaitTick();
            }
        });
    }

    /** One request short of IDs. */
    private final class Waiting implements IdBatch {
        private final long[] batch;
        private int taken;
        private final CompletableFuture<IdBatch> whole = new CompletableFuture<>();

        Waiting(long[] batch, int taken) {
            this.batch = batch;
            this.taken = taken;
        }

        @Override
        public long[] ids() {
            return batch;
        }

        @Override
        public int count() {
            return batch.length;
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
                whole.complete(this);
            } catch (RuntimeException e) {
                whole.completeExceptionally(e);
            }
            return true;
        }
    }
}

package io.idmint.server.api;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

/**
 * Where an operation's steps that may wait (for the segment store, for the clock's next tick)
 * run, as the calling thread allows: an event loop must never wait, so HTTP hands them to its
 * worker threads and is called back on its loop; a gRPC call's thread may wait, so it runs them
 * in place ({@link #IN_PLACE}). An operation that may wait returns the completion this gives.
 */
public interface Waits {

    /** Runs the steps on the calling thread, which may wait: the completion is done on return. */
    Waits IN_PLACE = new Waits() {
        @Override
        public <T> CompletionStage<T> run(Supplier<T> step) {
            try {
                return CompletableFuture.completedFuture(step.get());
            } catch (RuntimeException e) {
                return CompletableFuture.failedFuture(e);
            }
        }
    };

    /**
     * What a completion failed with, as the operation threw it: a stage that depends on
     * another reports its failure wrapped in a {@link CompletionException}.
     */
    static Throwable cause(Throwable failure) {
        return failure instanceof CompletionException && failure.getCause() != null
                ? failure.getCause() : failure;
    }

    /**
     * Runs {@code step} where waiting is allowed.
     *
     * @return its result or failure, completed on the calling thread's side (an event loop's
     *     callbacks run on that loop)
     */
    <T> CompletionStage<T> run(Supplier<T> step);
}

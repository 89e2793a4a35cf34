package io.idmint.server.http;

import io.idmint.server.api.Waits;
import io.vertx.core.Vertx;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

/**
 * HTTP's {@link Waits}: an event loop never waits, so a step that may wait runs on Vert.x's
 * worker threads (unordered: one slow call holds up no other), and its completion comes back
 * on the loop that asked.
 */
final class WorkerWaits implements Waits {

    static final WorkerWaits INSTANCE = new WorkerWaits();

    private WorkerWaits() {
    }

    @Override
    public <T> CompletionStage<T> run(Supplier<T> step) {
        return Vertx.currentContext().executeBlocking(step::get, false).toCompletionStage();
    }
}

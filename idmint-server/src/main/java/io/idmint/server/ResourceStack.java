package io.idmint.server;

import java.util.ArrayDeque;
import java.util.Deque;

/**
 * What a start has opened, closed in reverse order of opening: the last thing opened may use
 * everything opened before it, so it goes first. Each close runs even when one before it threw;
 * the first failure is rethrown with the later ones suppressed on it.
 */
final class ResourceStack implements AutoCloseable {

    private final Deque<AutoCloseable> opened = new ArrayDeque<>();

    /** Takes {@code resource} and returns it; a null one (a part not configured) is skipped. */
    <T extends AutoCloseable> T push(T resource) {
        if (resource != null) {
            opened.push(resource);
        }
        return resource;
    }

    /** Closes everything in reverse order of opening; a second call closes nothing. */
    @Override
    public void close() {
        RuntimeException first = null;
        while (!opened.isEmpty()) {
            try {
                opened.pop().close();
            } catch (Exception e) {
                if (first == null) {
                    first = e instanceof RuntimeException r ? r
                            : new IllegalStateException("closing failed: " + e.getMessage(), e);
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }

    /**
     * Closes everything after {@code failure}, which stays the exception to throw: what the
     * closes throw is suppressed on it.
     */
    void closeAfter(RuntimeException failure) {
        try {
            close();
        } catch (RuntimeException e) {
            failure.addSuppressed(e);
        }
    }
}

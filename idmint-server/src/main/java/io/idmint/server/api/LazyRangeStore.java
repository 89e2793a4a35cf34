package io.idmint.server.api;

import io.idmint.segment.RangeStores;
import io.idmint.spi.Range;
import io.idmint.spi.RangeStore;
import io.idmint.spi.RegistryException;
import io.idmint.spi.TagInfo;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Consumer;

/**
 * The configured range store, opened again on use for as long as it cannot be opened: a segment
 * store that is down when the server starts must not stop the server (the snowflake API serves
 * on, segment calls answer 503 until the store opens). Until then every call fails with
 * {@link RegistryException.Kind#UNAVAILABLE}, which the segment generator treats as an outage.
 * A bad URI still fails at once, at start.
 */
public final class LazyRangeStore implements RangeStore {

    private final String uri;
    private final Path dataDir;
    // guarded by this
    private RangeStore store;
    private boolean closed;

    private LazyRangeStore(String uri, Path dataDir) {
        this.uri = uri;
        this.dataDir = dataDir;
    }

    /**
     * Opens the store at {@code uri}, or, when that fails for any reason but a bad URI, returns a
     * store that tries again on each use (whose calls fail with UNAVAILABLE until then).
     *
     * @throws IllegalArgumentException when the URI is malformed or names no known backend
     */
    public static LazyRangeStore open(String uri, Path dataDir) {
        LazyRangeStore s = new LazyRangeStore(uri, dataDir);
        try {
            s.store();
        } catch (RegistryException e) {
            // opened again on use; its calls say why it cannot be opened
        }
        return s;
    }

    /**
     * Asks the store for its tags on a thread of its own and returns at once, so that a server
     * is ready without waiting for it: the first ask connects, creates the table and, for the
     * embedded default store, loads the hundreds of classes of its database
     * (docs/observability.md, "Start-up"); a store that is down would hold the start for its
     * timeout. Calls that come meanwhile go to the store as usual.
     *
     * @param warn told why, when the store does not answer (not when closed meanwhile)
     */
    void warmUp(Consumer<String> warn) {
        Thread opener = new Thread(() -> {
            try {
                tags();
            } catch (RegistryException | RuntimeException e) {
                if (!closed()) {
                    warn.accept(SegmentService.notAnswering(e));
                }
            }
        }, "idmint-segment-store-open");
        opener.setDaemon(true);
        opener.start();
    }

    private synchronized boolean closed() {
        return closed;
    }

    private synchronized RangeStore store() throws RegistryException {
        if (closed) {
            throw new RegistryException(RegistryException.Kind.UNAVAILABLE,
                    "the segment store is closed");
        }
        if (store == null) {
            try {
                store = RangeStores.open(uri, dataDir);
            } catch (IllegalArgumentException e) {
                throw e;
            } catch (RuntimeException e) {
                // Not the URI, which may hold a password: the scheme and the cause.
                throw new RegistryException(RegistryException.Kind.UNAVAILABLE, "cannot open the "
                        + "segment store (" + uri.substring(0, Math.max(0, uri.indexOf(':')))
                        + "): " + e.getMessage(), e);
            }
        }
        return store;
    }

    @Override
    public Range allocate(String tag, long size) throws RegistryException {
        return store().allocate(tag, size);
    }

    @Override
    public void create(String tag, long start, long step) throws RegistryException {
        store().create(tag, start, step);
    }

    @Override
    public List<TagInfo> tags() throws RegistryException {
        return store().tags();
    }

    @Override
    public void define(String name, String definition) throws RegistryException {
        store().define(name, definition);
    }

    @Override
    public String definition(String name) throws RegistryException {
        return store().definition(name);
    }

    @Override
    public java.util.SortedMap<String, String> definitions() throws RegistryException {
        return store().definitions();
    }

    @Override
    public synchronized void close() {
        closed = true;
        if (store != null) {
            store.close();
        }
    }
}

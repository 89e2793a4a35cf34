package io.idmint.shardingsphere;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * The generators the key generators use, one per configuration per JVM: ShardingSphere makes an
 * algorithm for every rule that names it (and again when a rule is altered) and never closes
 * one, so the generator, its leased worker and its store connection live here, shared by every
 * algorithm of the same properties, and are released (the worker with its final high-water
 * mark) when the JVM exits.
 */
final class Shared {

    private static final Map<String, Object> OPEN = new ConcurrentHashMap<>();
    private static final List<AutoCloseable> CLOSE_ORDER = new ArrayList<>();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(Shared::closeAll,
                "idmint-shardingsphere-release"));
    }

    private Shared() {
    }

    /**
     * The object made by {@code open} for {@code key}, made once.
     *
     * @param open makes the object and returns, in closing order, what it holds
     */
    @SuppressWarnings("unchecked")
    static <T> T get(String key, Supplier<Opened<T>> open) {
        return (T) OPEN.computeIfAbsent(key, k -> {
            Opened<T> opened = open.get();
            synchronized (CLOSE_ORDER) {
                CLOSE_ORDER.addAll(opened.close());
            }
            return opened.value();
        });
    }

    private static void closeAll() {
        synchronized (CLOSE_ORDER) {
            for (AutoCloseable c : CLOSE_ORDER) {
                try {
                    c.close();
                } catch (Exception e) {
                    // The JVM is exiting; the lease expires on its own.
                }
            }
            CLOSE_ORDER.clear();
        }
    }

    /** An opened object and what to close, in order, when the JVM exits. */
    record Opened<T>(T value, List<AutoCloseable> close) {
    }
}

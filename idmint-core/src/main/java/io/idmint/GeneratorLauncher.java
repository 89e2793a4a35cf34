package io.idmint;

import io.idmint.spi.ClaimRequest;
import io.idmint.spi.RegistryException;
import io.idmint.spi.WorkerRegistry;
import java.util.concurrent.Executor;

/**
 * Starts what {@link Snowflake#build()} resolved: one {@link SnowflakeGenerator} per worker asked
 * for, all sharing one {@link FleetClock}. Each makes its first acquisition on the building
 * thread, so that a registry that refuses the configuration fails the build, and only then starts
 * its maintenance loop. With several workers the generators are returned striped; when one of
 * them fails to start, the ones started so far are closed (their workers released) again.
 */
final class GeneratorLauncher {

    private final GeneratorSettings settings;
    private final WorkerRegistry registry;
    /** Where each maintenance loop runs; null: a daemon thread of its own per worker. */
    private final Executor maintenance;

    GeneratorLauncher(GeneratorSettings settings, WorkerRegistry registry, Executor maintenance) {
        this.settings = settings;
        this.registry = registry;
        this.maintenance = maintenance;
    }

    /**
     * Leases {@code k} workers for {@code request}, the first one with its preference, and returns
     * the running generator (striped when {@code k > 1}).
     *
     * @throws IllegalStateException as {@link Snowflake#build()} documents
     */
    IdGenerator launch(ClaimRequest request, int k) {
        int dc = request.datacenterId();
        String thread = "idmint-lease-" + request.namespace() + "-dc" + dc;
        // One fleet clock check for the node, however many workers it holds.
        FleetClock fleet = new FleetClock(settings, registry, request.namespace());
        if (k == 1) {
            return start(request, fleet, thread, false);
        }
        SnowflakeGenerator[] stripes = new SnowflakeGenerator[k];
        int leased = 0;
        try {
            for (; leased < k; leased++) {
                // The preference is the first worker's; the others take free ones in the
                // registry's order.
                stripes[leased] = start(leased == 0 ? request
                        : request.withoutPreference(), fleet, thread + "-" + leased, true);
            }
        } catch (RuntimeException e) {
            for (int i = 0; i < leased; i++) {
                stripes[i].close();
            }
            if (e.getCause() instanceof RegistryException r
                    && r.kind() == RegistryException.Kind.POOL_FULL) {
                throw new IllegalStateException("workers " + k + ": only " + leased
                        + " worker IDs of datacenter " + dc + " were free in namespace "
                        + request.namespace() + " (" + r.getMessage() + "); released them "
                        + "again. Ask for fewer workers or free some worker IDs", r);
            }
            throw e;
        }
        return new StripedGenerator(stripes);
    }

    /** One generator on one leased worker, its first acquisition done on this thread. */
    private SnowflakeGenerator start(ClaimRequest request, FleetClock fleet, String threadName,
            boolean poolFullIsFatal) {
        SnowflakeGenerator generator = new SnowflakeGenerator(settings, registry, request, fleet);
        generator.lease().acquireOrThrow(poolFullIsFatal);
        generator.lease().start(maintenance != null ? maintenance : task -> {
            Thread t = new Thread(task, threadName);
            t.setDaemon(true);
            t.start();
        });
        return generator;
    }
}

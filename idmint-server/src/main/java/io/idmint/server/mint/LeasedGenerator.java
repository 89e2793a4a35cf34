package io.idmint.server.mint;

import io.idmint.GeneratorListener;
import io.idmint.IdGenerator;
import io.idmint.SequenceStart;
import io.idmint.Snowflake;
import io.idmint.WorkerRegistries;
import io.idmint.server.config.Config;
import io.idmint.spi.WorkerRegistry;

/**
 * A generator built from the configuration, with the registry it leases its worker from. Closing
 * releases the worker, then the registry; it may be called twice, from two threads (a shutdown
 * hook and the main thread), and closes once.
 */
public final class LeasedGenerator implements AutoCloseable {

    private final WorkerRegistry registry;
    private final IdGenerator ids;
    private boolean closed;

    LeasedGenerator(WorkerRegistry registry, IdGenerator ids) {
        this.registry = registry;
        this.ids = ids;
    }

    /**
     * The worker preferred when the configuration names none: worker 0, so that processes that
     * restart (a server, or {@code idmint next} run again and again) take low IDs back rather
     * than a fresh worker each time (docs/configuration.md, {@code worker}).
     */
    static final int DEFAULT_WORKER = 0;

    /**
     * Opens the registry and builds a generator on it.
     *
     * @throws IllegalArgumentException naming a bad setting
     * @throws IllegalStateException when the registry refuses this node
     */
    public static LeasedGenerator open(Config config) {
        return open(config, 1, GeneratorListener.NONE);
    }

    /**
     * As {@link #open(Config)}, minting from {@code workers} leased workers (the first one
     * preferring the configured worker, else {@link #DEFAULT_WORKER}), and telling
     * {@code listener} about the generator.
     */
    public static LeasedGenerator open(Config config, int workers, GeneratorListener listener) {
        WorkerRegistry registry = WorkerRegistries.open(config.get(Config.REGISTRY),
                config.get(Config.DATA_DIR));
        try {
            return new LeasedGenerator(registry, build(config, registry, workers, listener));
        } catch (RuntimeException e) {
            registry.close();
            throw e;
        }
    }

    /**
     * Builds the configured generator on {@code registry}, which stays the caller's: claims
     * {@code workers} workers (the first one preferring the configured worker, else
     * {@link #DEFAULT_WORKER}) on the calling thread.
     *
     * @throws IllegalArgumentException naming a bad setting
     * @throws IllegalStateException when the registry refuses this node
     */
    static IdGenerator build(Config config, WorkerRegistry registry, int workers,
            GeneratorListener listener) {
        Snowflake builder = Snowflake.newBuilder()
                .layout(config.get(Config.LAYOUT))
                .registry(registry)
                .namespace(config.get(Config.NAMESPACE))
                .datacenterId(config.get(Config.DATACENTER))
                .clockPolicy(config.get(Config.CLOCK_POLICY))
                .maxClockWait(config.get(Config.CLOCK_MAX_WAIT))
                .maxForwardStep(config.get(Config.CLOCK_MAX_FORWARD_STEP))
                .maxClockSkew(config.get(Config.CLOCK_MAX_SKEW))
                .maxLead(config.get(Config.SEQUENCE_MAX_LEAD))
                .sequenceStart(sequenceStart(config))
                .leaseTtl(config.get(Config.LEASE_TTL))
                .keepaliveInterval(config.get(Config.LEASE_KEEPALIVE))
                .storeTimeout(config.get(Config.LEASE_STORE_TIMEOUT))
                .reservationWindow(config.get(Config.LEASE_RESERVATION))
                .workers(workers)
                .listener(listener);
        String dcName = config.get(Config.DATACENTER_NAME);
        if (dcName != null) {
            builder.datacenterName(dcName);
        }
        Integer worker = config.get(Config.WORKER);
        builder.preferredWorkerId(worker != null ? worker : DEFAULT_WORKER);
        return builder.build();
    }

    /** The configured start; a random one is keyed from this process's secure random. */
    static SequenceStart sequenceStart(Config config) {
        return config.get(Config.SEQUENCE_RANDOM_START)
                ? SequenceStart.random(config.get(Config.SEQUENCE_RANDOM_SPAN),
                        new java.security.SecureRandom())
                : SequenceStart.zero();
    }

    public IdGenerator ids() {
        return ids;
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            ids.close();
        } finally {
            registry.close();
        }
    }
}

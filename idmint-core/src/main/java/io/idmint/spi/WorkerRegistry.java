package io.idmint.spi;

/**
 * Where worker IDs are leased and their high-water marks (HWMs) kept. Three conditional
 * operations; the core builds the protocol (reservations, runway, states) on top. Implementations
 * are thread-safe and own no protocol logic: no retries, no caching of worker IDs.
 */
public interface WorkerRegistry extends AutoCloseable {

    /**
     * Atomically takes a free worker ID, binds it to a liveness lease, and reads its HWM in the
     * same step. Which one: the preferred one when free; else the lowest free ID whose HWM is
     * not ahead of the clock (a never-used ID counts as HWM 0), so that a fleet that restarts
     * keeps reusing a compact set of IDs; else, when every free one is ahead, the coldest (lowest
     * HWM). The clock is the store's where the registry reads it in the claim, else this node's.
     *
     * @throws RegistryException {@code POOL_FULL} when every ID is held, {@code CONFLICT} when
     *     the stored layout or datacenter differs, {@code UNAVAILABLE} when the store did not
     *     answer, {@code CORRUPT} when stored state is unreadable
     */
    Claim claim(ClaimRequest request) throws RegistryException;

    /**
     * {@code HWM := max(HWM, untilMillis)} and renew the liveness lease, only if the fencing
     * token is unchanged.
     *
     * @return the new fencing token
     * @throws RegistryException {@code LEASE_LOST} when the token changed, {@code UNAVAILABLE}
     *     when the outcome is unknown (the caller keeps its old limit and retries)
     */
    long extend(Claim claim, long untilMillis) throws RegistryException;

    /**
     * Writes the final HWM (never below the HWM read at claim time), then drops ownership so the
     * worker ID is free at once.
     *
     * @throws RegistryException {@code LEASE_LOST} when the token changed (nothing is written)
     */
    void release(Claim claim, long finalHwmMillis) throws RegistryException;

    /**
     * Every worker ID of a namespace that has a stored HWM or a holder, by datacenter and worker.
     *
     * @throws RegistryException {@code UNAVAILABLE} when the store did not answer
     */
    java.util.List<WorkerRecord> list(String namespace) throws RegistryException;

    /**
     * The held worker IDs of a namespace with their high-water marks, for the fleet clock check
     * (docs/design.md, "Clock checks"), which every node reads every few seconds when the store
     * has no clock: {@link WorkerRecord#leaseExpiresMillis()} may be 0. The default filters
     * {@link #list}; a registry whose listing pays extra reads for the expiry (etcd: one per
     * lease) answers it without them.
     *
     * @throws RegistryException {@code UNAVAILABLE} when the store did not answer
     */
    default java.util.List<WorkerRecord> heldWorkers(String namespace) throws RegistryException {
        return list(namespace).stream().filter(WorkerRecord::held).toList();
    }

    /**
     * The store's own clock (Unix ms), read in one round trip, for the fleet clock check
     * (docs/design.md, "Clock checks"): the caller brackets the call with its own clock. Empty
     * when the store keeps no clock it can report (etcd, {@code static:}); the check then
     * compares with the other holders' high-water marks from {@link #heldWorkers}.
     *
     * @throws RegistryException {@code UNAVAILABLE} when the store did not answer
     */
    default java.util.OptionalLong storeTimeMillis() throws RegistryException {
        return java.util.OptionalLong.empty();
    }

    /** Frees client resources. Claims not released stay until their lease runs out. */
    @Override
    void close();
}

package io.idmint;

/**
 * Where a generator's worker lease stands. Only {@link #ACTIVE} and {@link #DEGRADED} issue IDs.
 */
public enum LeaseState {
    /** Looking for a worker ID in the registry. Callers get NOT READY and should retry later. */
    ACQUIRING,
    /** A worker ID is held and its reservation is current. IDs are issued. */
    ACTIVE,
    /**
     * A worker ID is held but the registry did not answer the last renewal. IDs are still issued
     * within the reserved runway; operators should look at the store before the runway ends.
     */
    DEGRADED,
    /**
     * The worker ID is gone (taken over, fenced, or the store unreachable past the runway, or the
     * clock far behind). No IDs; the generator re-acquires by itself.
     */
    LOST,
    /** Closed: the worker ID was released with its final high-water mark. No IDs, ever again. */
    RELEASED
}

package io.idmint;

/**
 * The part of the generator the HWM protocol drives: {@link HwmLease} sees its generator only
 * through this, as what the protocol allows it to issue and what it issued.
 */
interface LeaseIssuer {

    /**
     * Starts issuing on a newly claimed worker, above {@code hwmTick} and up to
     * {@code limitTick}.
     */
    void install(int datacenterId, int workerId, long hwmTick, long limitTick);

    /** Raises the issuance limit after an acknowledged reservation. */
    void extendLimit(long limitTick);

    /**
     * Stops issuing, atomically; returns the last tick issued, or {@link Long#MIN_VALUE}.
     * Later calls throw {@code reason}.
     */
    long retire(IdUnavailableException reason);

    /** The last tick issued on the held worker, or {@link Long#MIN_VALUE}. */
    long lastIssuedTick();

    /** The last tick issued on a worker given up before, or {@link Long#MIN_VALUE}. */
    long lastRetiredTick();
}

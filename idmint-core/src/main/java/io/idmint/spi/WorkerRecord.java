package io.idmint.spi;

/**
 * One worker ID as a registry sees it, for {@code idmint registry list}.
 *
 * @param datacenterId the datacenter
 * @param workerId the worker ID
 * @param hwmMillis its stored high-water mark (Unix ms)
 * @param holder who holds it ({@code host/pid}), or "" when free
 * @param leaseExpiresMillis when the holder's lease runs out without renewal (Unix ms, the
 *     store's clock), 0 when free, {@link Long#MAX_VALUE} when held for the life of a process
 * @param maxAheadMillis how far ahead of its clock the holder may raise the HWM, as its claim
 *     said ({@link ClaimRequest#maxAheadMillis}); 0 when free, not said, or not kept (a registry
 *     whose store reports its own clock need not keep it)
 */
public record WorkerRecord(int datacenterId, int workerId, long hwmMillis, String holder,
        long leaseExpiresMillis, long maxAheadMillis) {

    /** A record that does not say how far ahead of its clock the holder reserves. */
    public WorkerRecord(int datacenterId, int workerId, long hwmMillis, String holder,
            long leaseExpiresMillis) {
        this(datacenterId, workerId, hwmMillis, holder, leaseExpiresMillis, 0);
    }

    public boolean held() {
        return !holder.isEmpty();
    }
}

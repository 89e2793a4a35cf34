package io.idmint.spi;

/**
 * A worker ID held by this node.
 *
 * @param namespace the namespace of the request it answers
 * @param datacenterId the datacenter the worker belongs to
 * @param workerId the worker ID taken
 * @param token the fencing token: changes whenever anyone writes this worker's high-water mark;
 *     an extend or release with a stale token fails with {@link RegistryException.Kind#LEASE_LOST}
 * @param hwmMillis the stored high-water mark read in the same step as the claim (Unix ms); the
 *     new holder issues only timestamps strictly above it
 * @param leaseTtlMillis how long the registry keeps the claim without an extend;
 *     {@link Long#MAX_VALUE} when the claim lives as long as the process (the {@code static}
 *     registry's OS file lock)
 */
public record Claim(String namespace, int datacenterId, int workerId, long token, long hwmMillis,
        long leaseTtlMillis) {

    /** The same claim with a new fencing token. */
    public Claim withToken(long newToken) {
        return new Claim(namespace, datacenterId, workerId, newToken, hwmMillis, leaseTtlMillis);
    }
}

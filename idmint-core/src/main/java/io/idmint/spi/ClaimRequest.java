package io.idmint.spi;

/**
 * What a node asks a registry for.
 *
 * @param namespace the deployment, so several fleets can share one store
 * @param layoutSpec the canonical layout spec; a registry stores it on first use and refuses a
 *     different one
 * @param datacenterId the datacenter this node is configured for
 * @param maxWorkerId worker IDs are {@code 0..maxWorkerId}
 * @param preferredWorkerId the worker ID to take when it is free, or -1 for none
 * @param leaseTtlMillis how long the registry keeps the claim alive without an extend
 */
public record ClaimRequest(String namespace, String layoutSpec, int datacenterId, int maxWorkerId,
        int preferredWorkerId, long leaseTtlMillis) {

    public ClaimRequest {
        if (namespace == null || !namespace.matches("[A-Za-z0-9._-]{1,64}")) {
            throw new IllegalArgumentException("namespace '" + namespace + "' must be 1 to 64 of "
                    + "A-Z a-z 0-9 . _ -");
        }
        if (maxWorkerId < 0) {
            throw new IllegalArgumentException("maxWorkerId must be >= 0, got " + maxWorkerId);
        }
        if (preferredWorkerId < -1 || preferredWorkerId > maxWorkerId) {
            throw new IllegalArgumentException("preferred worker " + preferredWorkerId
                    + " is outside 0.." + maxWorkerId);
        }
    }

    /** The same request with no preferred worker. */
    public ClaimRequest withoutPreference() {
        return new ClaimRequest(namespace, layoutSpec, datacenterId, maxWorkerId, -1, leaseTtlMillis);
    }
}

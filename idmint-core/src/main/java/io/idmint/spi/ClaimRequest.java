package io.idmint.spi;

import io.idmint.spi.support.Names;

/**
 * What a node asks a registry for.
 *
 * @param namespace the deployment, so several fleets can share one store
 * @param layoutSpec the canonical layout spec; a registry stores it on first use and refuses a
 *     different one
 * @param datacenterId the datacenter this node is configured for
 * @param datacenterName the name of that datacenter, or "" for none; a registry stores the name
 *     of each datacenter ID on first use and refuses another name for it, so two datacenters
 *     configured with one ID cannot both start
 * @param maxWorkerId worker IDs are {@code 0..maxWorkerId}
 * @param preferredWorkerId the worker ID to take when it is free, or -1 for none
 * @param leaseTtlMillis how long the registry keeps the claim alive without an extend
 * @param holder who is claiming, for operators ({@code host/pid}); not used for safety
 * @param maxAheadMillis how far ahead of the claimant's clock it may raise the worker's HWM (its
 *     reservation window plus its sequence's lead), or 0 when not said. A registry whose store
 *     keeps no clock ({@link WorkerRegistry#storeTimeMillis} empty) keeps it with the holder and
 *     reports it in {@link WorkerRecord#maxAheadMillis}: the fleet clock check reads each HWM
 *     against its own holder's window, so a node beside holders with longer windows is not judged
 *     behind by the difference (docs/design.md, "Clock checks")
 */
public record ClaimRequest(String namespace, String layoutSpec, int datacenterId,
        String datacenterName, int maxWorkerId, int preferredWorkerId, long leaseTtlMillis,
        String holder, long maxAheadMillis) {

    public ClaimRequest {
        Names.requireNamespace(namespace);
        Names.requireDatacenterName(datacenterName, "datacenter name");
        if (maxWorkerId < 0) {
            throw new IllegalArgumentException("maxWorkerId must be >= 0, got " + maxWorkerId);
        }
        if (preferredWorkerId < -1 || preferredWorkerId > maxWorkerId) {
            throw new IllegalArgumentException("preferred worker " + preferredWorkerId
                    + " is outside 0.." + maxWorkerId);
        }
        if (leaseTtlMillis <= 0) {
            throw new IllegalArgumentException("lease TTL must be positive, got " + leaseTtlMillis);
        }
        if (maxAheadMillis < 0) {
            throw new IllegalArgumentException("maxAheadMillis must be >= 0, got "
                    + maxAheadMillis);
        }
        holder = holder == null ? "" : holder;
    }

    /** A request that does not say how far ahead of its clock the claimant reserves. */
    public ClaimRequest(String namespace, String layoutSpec, int datacenterId,
            String datacenterName, int maxWorkerId, int preferredWorkerId, long leaseTtlMillis,
            String holder) {
        this(namespace, layoutSpec, datacenterId, datacenterName, maxWorkerId, preferredWorkerId,
                leaseTtlMillis, holder, 0);
    }

    /** The same request with no preferred worker. */
    public ClaimRequest withoutPreference() {
        return new ClaimRequest(namespace, layoutSpec, datacenterId, datacenterName, maxWorkerId,
                -1, leaseTtlMillis, holder, maxAheadMillis);
    }
}

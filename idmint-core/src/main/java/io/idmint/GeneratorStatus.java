package io.idmint;

/**
 * An immutable snapshot of a generator, for health checks and status pages.
 *
 * @param state where the worker lease stands
 * @param layout the layout IDs are minted in
 * @param datacenterId the datacenter ID, or -1 while no worker is held
 * @param workerId the worker ID, or -1 while no worker is held
 * @param runwayMillis how long IDs can still be issued without a renewal; 0 when none can
 * @param clockOffsetMillis the wall clock minus the generator's clock (negative: wall stepped back)
 * @param detail a sentence on why the state is what it is, for operators
 */
public record GeneratorStatus(LeaseState state, Layout layout, int datacenterId, int workerId,
        long runwayMillis, long clockOffsetMillis, String detail) {

    /** Whether IDs can be issued now. */
    public boolean ready() {
        return (state == LeaseState.ACTIVE || state == LeaseState.DEGRADED) && runwayMillis > 0;
    }
}

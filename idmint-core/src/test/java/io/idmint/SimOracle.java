package io.idmint;

import static io.idmint.Simulation.T0;

/**
 * The simulation's oracle, checked as a schedule runs: no ID twice; the IDs of one process
 * strictly increase; an ID's time is above the HWM its holder's claim read and at most the
 * highest reservation the store acknowledged to that holder (not merely stored); one millisecond
 * of one worker has one holder; and a start or maintenance step never leaves a node issuing on a
 * worker whose lease the store no longer has for it (the lease deadline runs from the send of the
 * last acknowledged renewal, so it ends before the store's expiry).
 */
final class SimOracle {

    /** An oracle violation: the message names the seed's first broken promise. */
    static final class Violation extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Violation(String message) {
            super(message, null, false, false);
        }
    }

    private final Simulation sim;
    private final Layout layout;
    private final SimStore store;
    /** Every ID issued, with the node that issued it. */
    private final SimLongMap ids = new SimLongMap();
    /** Who issued in each millisecond of each worker. */
    private final SimLongMap holderOfMilli = new SimLongMap();
    private int issued;

    SimOracle(Simulation sim, Layout layout, SimStore store) {
        this.sim = sim;
        this.layout = layout;
        this.store = store;
    }

    int issued() {
        return issued;
    }

    void issued(Simulation.Node n, long id) {
        IdParts p = layout.decode(id);
        int w = p.workerId();
        long ts = p.timestampMillis();
        issued++;
        sim.count(Simulation.Event.ID);
        if (id <= n.lastId) {
            fail(n, "IDs of one process do not increase: " + id + " after " + n.lastId);
        }
        n.lastId = id;
        if (ts > n.acked[w]) {
            fail(n, "issued time " + (ts - T0) + " on worker " + w + " above the reservation "
                    + "the store acknowledged to it, " + (n.acked[w] - T0));
        }
        if (ts <= n.claimedHwm[w]) {
            fail(n, "issued time " + (ts - T0) + " on worker " + w + " at or below the HWM its "
                    + "claim read, " + (n.claimedHwm[w] - T0));
        }
        int first = ids.putIfAbsent(id, n.id);
        if (first != n.id) { // the same process twice is caught above
            fail(n, "duplicate ID " + id + " (" + p + "), first issued by node#" + first);
        }
        int other = holderOfMilli.putIfAbsent(((long) w << 48) | (ts - layout.epochMillis()),
                n.id);
        if (other != n.id) {
            fail(n, "two holders in millisecond " + (ts - T0) + " of worker " + w + ": node#"
                    + other + " and node#" + n.id);
        }
    }

    /**
     * A fenced UUIDv7 (then checked as the ID it carries, {@link #issued}): version 7, and above
     * the process's last UUID as unsigned 128-bit numbers, as its IDs are.
     */
    void issuedUuid(Simulation.Node n, java.util.UUID uuid) {
        if (uuid.version() != 7 || uuid.variant() != 2) {
            fail(n, "fenced UUID " + uuid + " is not a version 7 UUID");
        }
        java.util.UUID last = n.lastUuid;
        if (last != null && io.idmint.testkit.IdOracle.compareUnsigned(uuid, last) <= 0) {
            fail(n, "fenced UUIDs of one process do not increase: " + uuid + " after " + last);
        }
        n.lastUuid = uuid;
    }


    /** After a start or a maintenance step: a node that issues must still hold its lease. */
    void afterStep(Simulation.Node n) {
        GeneratorStatus s = n.gen.status();
        if (issuing(s.state()) && !store.holds(n, s.workerId())) {
            fail(n, "still " + s.state() + " on worker " + s.workerId() + " after the store's "
                    + "lease ran out: " + store.describe(s.workerId()));
        }
    }

    private static boolean issuing(LeaseState s) {
        return s == LeaseState.ACTIVE || s == LeaseState.DEGRADED;
    }

    private void fail(Simulation.Node n, String what) {
        throw new Violation("node#" + n.id + " at " + (sim.now() - T0) + " ms: " + what
                + " after " + issued + " IDs");
    }
}

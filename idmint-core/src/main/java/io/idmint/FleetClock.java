package io.idmint;

import io.idmint.IdUnavailableException.Reason;
import io.idmint.spi.RegistryException;
import io.idmint.spi.WorkerRecord;
import io.idmint.spi.WorkerRegistry;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.OptionalLong;

/**
 * The fleet clock check (docs/design.md, "Clock checks"): this node's clock against the fleet's,
 * between every claim and its reservation and periodically while a worker is held, so that a
 * node never raises a high-water mark with a clock the fleet disputes.
 *
 * <p>The fleet's time is the store's own clock where the registry reports one, read between two
 * local readings (the round trip widens the bounds). Otherwise it is the lower median of the
 * high-water marks (HWMs) of the workers other nodes hold, which bounds the fleet's clock from
 * below: an HWM is at most its holder's clock plus the reservation window and the sequence's
 * lead. A stale HWM (a paused holder) only lowers the bound, and one node ahead cannot move the
 * median. With fewer than two other holders there is no reference; through HWMs a node is shown
 * behind, never ahead.
 *
 * <p>The same check confirms or disputes a forward step of the wall clock that the
 * {@link HybridTimeSource} holds back.
 */
final class FleetClock {

    /** How often a held worker's clock is compared with the fleet's. */
    static final long CHECK_INTERVAL_MILLIS = 10_000;

    /**
     * One check's outcome.
     *
     * @param reference whether there was anything to compare with
     * @param skewMillis this node's clock minus the fleet's bounds (positive: ahead), 0 inside
     * @param fault {@code CLOCK_BEHIND_FLEET} or {@code CLOCK_AHEAD_OF_FLEET} past the max skew,
     *     else null
     * @param why a sentence for operators when there is a fault
     * @param repeated whether the check before found a fault too
     */
    record Verdict(boolean reference, long skewMillis, Reason fault, String why,
            boolean repeated) {
    }

    private final GeneratorSettings settings;
    private final WorkerRegistry registry;
    private final String namespace;
    private volatile long skewMillis;
    /** While a worker is held: when it was last compared, on both clocks of the time source. */
    private long checkedNanos;
    private long checkedMillis;
    /** Whether the last check of the held worker's clock found a fault. */
    private boolean faultSeen;

    FleetClock(GeneratorSettings settings, WorkerRegistry registry, String namespace) {
        this.settings = settings;
        this.registry = registry;
        this.namespace = namespace;
    }

    /** This node's clock minus the fleet's bounds at the last check that had a reference. */
    long skewMillis() {
        return skewMillis;
    }

    /**
     * The check between a claim and its reservation, which must find no fault; the claimed
     * worker is left out of the comparison.
     */
    Verdict beforeReserve(int datacenterId, int workerId) throws RegistryException {
        faultSeen = false;
        return check(datacenterId, workerId);
    }

    /** A worker was reserved: its clock is next checked an interval from now. */
    void held() {
        checkedNanos = settings.time().nanoTime();
        checkedMillis = settings.time().currentTimeMillis();
    }

    /**
     * The check while holding a worker, when due: every {@link #CHECK_INTERVAL_MILLIS}, and at
     * each step while a fault or a held-back forward step waits, or when the time source moved
     * further than its monotonic clock since the last check (a time source that follows steps).
     * Returns a fault, else null; a fault is {@linkplain Verdict#repeated() repeated} when the
     * check before found one too: one HWM caught between its holder's claim and reservation
     * must not cost a healthy node its worker. A store that does not answer is left to the
     * renewals.
     */
    Verdict whileHeld(int datacenterId, int workerId) {
        TimeSource time = settings.time();
        long nanos = time.nanoTime();
        long jumped = time.currentTimeMillis() - checkedMillis - (nanos - checkedNanos) / 1_000_000;
        boolean due = faultSeen || nanos - checkedNanos >= CHECK_INTERVAL_MILLIS * 1_000_000
                || jumped > settings.maxSkewMillis()
                || time instanceof HybridTimeSource h
                        && h.wallClockOffsetMillis() > h.maxForwardStepMillis();
        if (!due) {
            return null;
        }
        Verdict v;
        try {
            v = check(datacenterId, workerId);
        } catch (RegistryException e) {
            return null;
        }
        held();
        boolean repeated = faultSeen;
        faultSeen = v.fault() != null;
        return v.fault() == null ? null
                : new Verdict(true, v.skewMillis(), v.fault(), v.why(), repeated);
    }

    /**
     * Compares this node's clock with the fleet's, leaving out the worker this node holds (-1 for
     * none).
     *
     * @throws RegistryException when the store did not answer
     */
    Verdict check(int ownDatacenterId, int ownWorkerId) throws RegistryException {
        TimeSource time = settings.time();
        long before = time.currentTimeMillis();
        OptionalLong store = registry.storeTimeMillis();
        long now = time.currentTimeMillis();
        long lo;
        long hi;
        String against;
        if (store.isPresent()) {
            lo = store.getAsLong();
            hi = lo + (now - before);
            against = "the store's clock";
        } else {
            List<Long> others = new ArrayList<>();
            for (WorkerRecord r : registry.list(namespace)) {
                // This node's other stripes count: they read the same clock, so they can only
                // agree with it, and HWMs confirm nothing.
                boolean own = r.datacenterId() == ownDatacenterId && r.workerId() == ownWorkerId;
                if (r.held() && !own) {
                    others.add(r.hwmMillis());
                }
            }
            now = time.currentTimeMillis();
            if (others.size() < 2) {
                // Fewer than two other holders: no majority tells which clock is wrong, and one
                // holder's HWM left ahead by a clock that lied must not stop a healthy node.
                // Free workers' HWMs are no reference either.
                skewMillis = 0;
                return new Verdict(false, 0, null, null, false);
            }
            // The lower median: one node ahead (or several, short of half) cannot move it. An
            // HWM bounds its holder's clock from below only (a paused holder's, or one whose
            // lease is lapsing, is stale), so the HWMs show a node behind, never ahead: only a
            // store clock does that, or confirms a forward step.
            Collections.sort(others);
            long lead = settings.maxLeadTicks() * settings.layout().tickMillis();
            lo = others.get((others.size() - 1) / 2) - settings.windowMillis() - lead;
            hi = Long.MAX_VALUE;
            against = "the high-water marks other nodes hold";
        }
        long maxSkew = settings.maxSkewMillis();
        if (time instanceof HybridTimeSource h) {
            long gap = h.wallClockOffsetMillis();
            if (gap > h.maxForwardStepMillis()) {
                long wall = now + gap;
                if (wall < lo - maxSkew || wall - maxSkew > hi) {
                    h.disputeForwardStep();
                } else if (hi != Long.MAX_VALUE) {
                    h.confirmForwardStep(); // a bound from below alone confirms nothing
                }
            }
        }
        long skew = now < lo ? now - lo : now > hi ? now - hi : 0;
        skewMillis = skew;
        if (skew < -maxSkew) {
            return new Verdict(true, skew, Reason.CLOCK_BEHIND_FLEET, "clock is " + -skew
                    + " ms behind " + against + " (clock.max-skew " + maxSkew + " ms)", false);
        }
        if (skew > maxSkew) {
            return new Verdict(true, skew, Reason.CLOCK_AHEAD_OF_FLEET, "clock is " + skew
                    + " ms ahead of " + against + " (clock.max-skew " + maxSkew + " ms)", false);
        }
        return new Verdict(true, skew, null, null, false);
    }
}

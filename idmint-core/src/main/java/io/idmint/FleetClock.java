package io.idmint;

import io.idmint.IdUnavailableException.Reason;
import io.idmint.spi.RegistryException;
import io.idmint.spi.WorkerRecord;
import io.idmint.spi.WorkerRegistry;
import java.util.OptionalLong;

/**
 * The fleet clock check (docs/design.md, "Clock checks"): this node's clock against the fleet's,
 * before every claim and periodically while a worker is held, so that a node never raises a
 * high-water mark with a clock the fleet disputes.
 *
 * <p>The fleet's time is the store's own clock where the registry reports one, read between two
 * local readings (the round trip widens the bounds). Otherwise it is bounded by the high-water
 * marks (HWMs) of the workers other nodes hold: an HWM is at most its holder's clock plus the
 * reservation window and the sequence's lead, and, as the holder renews it at least once per
 * lease TTL while it holds the worker, at least its holder's clock minus (TTL - window). Stale
 * HWMs can therefore never make a healthy node look wrong; they only make the check coarser.
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
     */
    record Verdict(boolean reference, long skewMillis, Reason fault, String why) {
    }

    private final GeneratorSettings settings;
    private final WorkerRegistry registry;
    private final String namespace;
    private final long leaseTtlMillis;
    private volatile long skewMillis;
    /** While a worker is held: when its clock is next compared ({@link TimeSource#nanoTime()}). */
    private long nextCheckNanos;
    /** Whether the last check of the held worker's clock found a fault. */
    private boolean faultSeen;

    FleetClock(GeneratorSettings settings, WorkerRegistry registry, String namespace,
            long leaseTtlMillis) {
        this.settings = settings;
        this.registry = registry;
        this.namespace = namespace;
        this.leaseTtlMillis = leaseTtlMillis;
    }

    /** This node's clock minus the fleet's bounds at the last check that had a reference. */
    long skewMillis() {
        return skewMillis;
    }

    /** The check before a claim, which must find no fault. */
    Verdict beforeClaim() throws RegistryException {
        faultSeen = false;
        return check(-1, -1);
    }

    /** A worker was reserved at {@code nanos}: its clock is next checked an interval later. */
    void held(long nanos) {
        nextCheckNanos = nanos + CHECK_INTERVAL_MILLIS * 1_000_000;
    }

    /**
     * The check while holding a worker, when due: every {@link #CHECK_INTERVAL_MILLIS}, and at
     * each step while a fault or a held-back forward step waits. Returns the fault once two
     * checks in a row found one (so that one HWM caught between its holder's claim and its
     * reservation cannot cost a healthy node its worker), else null. A store that does not
     * answer is left to the renewals.
     */
    Verdict whileHeld(int datacenterId, int workerId) {
        TimeSource time = settings.time();
        boolean due = faultSeen || time.nanoTime() - nextCheckNanos >= 0
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
        held(time.nanoTime());
        boolean confirmed = v.fault() != null && faultSeen;
        faultSeen = v.fault() != null && !confirmed;
        return confirmed ? v : null;
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
            long max = Long.MIN_VALUE;
            boolean bounded = true;
            for (WorkerRecord r : registry.list(namespace)) {
                if (r.held() && (r.datacenterId() != ownDatacenterId
                        || r.workerId() != ownWorkerId) && r.hwmMillis() > max) {
                    max = r.hwmMillis();
                    bounded = r.leaseExpiresMillis() != Long.MAX_VALUE;
                }
            }
            now = time.currentTimeMillis();
            if (max == Long.MIN_VALUE) {
                skewMillis = 0;
                return new Verdict(false, 0, null, null);
            }
            long lead = settings.maxLeadTicks() * settings.layout().tickMillis();
            lo = max - settings.windowMillis() - lead;
            hi = bounded && leaseTtlMillis != Long.MAX_VALUE
                    ? max + Math.max(0, leaseTtlMillis - settings.windowMillis())
                    : Long.MAX_VALUE;
            against = "the high-water marks other nodes hold";
        }
        long maxSkew = settings.maxSkewMillis();
        if (time instanceof HybridTimeSource h) {
            long gap = h.wallClockOffsetMillis();
            if (gap > h.maxForwardStepMillis()) {
                long wall = now + gap;
                if (wall >= lo - maxSkew && wall - maxSkew <= hi) {
                    h.confirmForwardStep();
                } else {
                    h.disputeForwardStep();
                }
            }
        }
        long skew = now < lo ? now - lo : now > hi ? now - hi : 0;
        skewMillis = skew;
        if (skew < -maxSkew) {
            return new Verdict(true, skew, Reason.CLOCK_BEHIND_FLEET, "clock is " + -skew
                    + " ms behind " + against + " (clock.max-skew " + maxSkew + " ms)");
        }
        if (skew > maxSkew) {
            return new Verdict(true, skew, Reason.CLOCK_AHEAD_OF_FLEET, "clock is " + skew
                    + " ms ahead of " + against + " (clock.max-skew " + maxSkew + " ms)");
        }
        return new Verdict(true, skew, null, null);
    }
}

package io.idmint;

import io.idmint.IdUnavailableException.Reason;
import io.idmint.spi.RegistryException;
import io.idmint.spi.WorkerRecord;
import io.idmint.spi.WorkerRegistry;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The fleet clock check (docs/design.md, "Clock checks"): this node's clock against the fleet's,
 * between every claim and its reservation and periodically while a worker is held, so that a
 * node never raises a high-water mark with a clock the fleet disputes.
 *
 * <p>The fleet's time is the store's own clock where the registry reports one, read between two
 * local readings (the round trip widens the bounds). Otherwise it is the lower median of the
 * high-water marks (HWMs) of the workers other nodes hold, each less its holder's reservation,
 * which bounds the fleet's clock from below: an HWM is at most its holder's clock plus its
 * reservation window and its sequence's lead, which the holder's claim stored with it
 * ({@link WorkerRecord#maxAheadMillis}; this node's own where a record does not say). A stale
 * HWM (a paused holder) only lowers the bound, and one node ahead cannot move the median. With
 * fewer than two other holders there is no reference; through HWMs a node is shown behind,
 * never ahead.
 *
 * <p>One instance serves a node: every worker it holds (each stripe's lease has a {@link Watch})
 * shares one reading of the store, carried forward on the monotonic clock, so the store answers
 * one read per node every {@link #FRESH_MILLIS} at most, however many workers the node holds
 * (on etcd, with no store clock, a reading lists the namespace). A check compares the time
 * source's current reading with those bounds, so a step of this node's clock shows at once,
 * without a new read.
 *
 * <p>The same check confirms or disputes a forward step of the wall clock that the
 * {@link HybridTimeSource} holds back.
 */
final class FleetClock {

    /** How often a held worker's clock is compared with the fleet's. */
    static final long CHECK_INTERVAL_MILLIS = 10_000;

    /** How long one reading of the store serves every check of the node that is due. */
    static final long FRESH_MILLIS = CHECK_INTERVAL_MILLIS / 2;

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

    /**
     * One read of the store: its clock's bounds, or the held workers' HWMs, at {@code nanos} on
     * the monotonic clock.
     *
     * @param seq counts the reads: a fault must be confirmed by a later one
     * @param lo the store clock's lower bound (Unix ms) when it has one
     * @param hi its upper bound, {@link Long#MAX_VALUE} without a store clock
     * @param held without a store clock, each held worker as {@code datacenter << 32 | worker},
     *     the lower bound its HWM gives its holder's clock (the HWM minus the holder's
     *     {@link WorkerRecord#maxAheadMillis}), and the HWM; null with one
     * @param mine the workers this node held while the store was read: one it released since
     *     is still its own in {@code held}
     */
    private record Reading(long seq, long nanos, long lo, long hi, long[] held, Set<Long> mine) {
    }

    private final GeneratorSettings settings;
    private final WorkerRegistry registry;
    private final String namespace;
    private final List<Watch> watches = new CopyOnWriteArrayList<>();
    private volatile long skewMillis;
    /** The last read of the store, or null; guarded by this. */
    private Reading last;

    FleetClock(GeneratorSettings settings, WorkerRegistry registry, String namespace) {
        this.settings = settings;
        this.registry = registry;
        this.namespace = namespace;
    }

    /**
     * How far ahead of its clock a node with these settings may raise an HWM: its reservation
     * window plus its sequence's lead. Its claims store it, for the other nodes' checks.
     */
    static long maxAheadMillis(GeneratorSettings settings) {
        return settings.windowMillis() + settings.maxLeadTicks() * settings.layout().tickMillis();
    }

    /** This node's clock minus the fleet's bounds at the last check that had a reference. */
    long skewMillis() {
        return skewMillis;
    }

    /** The check's state for one lease of this node; its worker is left out of the fleet. */
    Watch watch() {
        Watch w = new Watch();
        watches.add(w);
        return w;
    }

    /** One lease's checks: when it was last checked, and whether that found a fault. */
    final class Watch {
        /** The worker held, as {@code datacenter << 32 | worker}, or -1. */
        private volatile long held = -1;
        /** While a worker is held: when it was last compared, on both clocks of the source. */
        private long checkedNanos;
        private long checkedMillis;
        /** The reading whose check of the held worker found a fault, or -1. */
        private long faultSeq = -1;

        private Watch() {
        }

        /**
         * The check between a claim and its reservation, which must find no fault; the claimed
         * worker is left out of the comparison. After a fault, the next claim's check reads the
         * store again: a node waiting for the fleet to agree sees it agree at once.
         */
        Verdict beforeReserve(int datacenterId, int workerId) throws RegistryException {
            Checked c = check(key(datacenterId, workerId), faultSeq);
            faultSeq = c.verdict.fault() == null ? -1 : c.seq;
            return c.verdict;
        }

        /** A worker was reserved: its clock is next checked an interval from now. */
        void held(int datacenterId, int workerId) {
            held = key(datacenterId, workerId);
            checked();
        }

        /** The worker is no longer held (lost, given up, released). */
        void released() {
            held = -1;
        }

        private void checked() {
            checkedNanos = settings.time().nanoTime();
            checkedMillis = settings.time().currentTimeMillis();
        }

        /**
         * The check while holding a worker, when due: every {@link #CHECK_INTERVAL_MILLIS}, and
         * at each step while a fault or a held-back forward step waits, or when the time source
         * moved further than its monotonic clock since the last check (a time source that
         * follows steps). Returns a fault, else null; a fault is
         * {@linkplain Verdict#repeated() repeated} when the check before found one too, on a
         * later read of the store: one HWM caught between its holder's claim and reservation
         * must not cost a healthy node its worker. A store that does not answer is left to the
         * renewals.
         */
        Verdict whileHeld() {
            TimeSource time = settings.time();
            long nanos = time.nanoTime();
            long jumped = time.currentTimeMillis() - checkedMillis
                    - (nanos - checkedNanos) / 1_000_000;
            boolean due = faultSeq >= 0
                    || nanos - checkedNanos >= CHECK_INTERVAL_MILLIS * 1_000_000
                    || jumped > settings.maxSkewMillis()
                    || time instanceof HybridTimeSource h
                            && h.wallClockOffsetMillis() > h.maxForwardStepMillis();
            if (!due) {
                return null;
            }
            Checked c;
            try {
                c = check(-1, faultSeq);
            } catch (RegistryException e) {
                return null;
            }
            checked();
            boolean repeated = faultSeq >= 0;
            Verdict v = c.verdict;
            faultSeq = v.fault() == null ? -1 : c.seq;
            return v.fault() == null ? null
                    : new Verdict(true, v.skewMillis(), v.fault(), v.why(), repeated);
        }
    }

    private record Checked(Verdict verdict, long seq) {
    }

    private static long key(int datacenterId, int workerId) {
        return (long) datacenterId << 32 | workerId;
    }

    /**
     * The last reading when it is fresh and later than {@code afterSeq}, else a new one.
     *
     * @throws RegistryException when the store did not answer
     */
    private synchronized Reading reading(long afterSeq) throws RegistryException {
        TimeSource time = settings.time();
        Reading r = last;
        if (r != null && r.seq > afterSeq
                && time.nanoTime() - r.nanos < FRESH_MILLIS * 1_000_000) {
            return r;
        }
        long seq = r == null ? 0 : r.seq + 1;
        long before = time.currentTimeMillis();
        OptionalLong store = registry.storeTimeMillis();
        if (store.isPresent()) {
            long lo = store.getAsLong();
            r = new Reading(seq, time.nanoTime(), lo, lo + (time.currentTimeMillis() - before),
                    null, Set.of());
        } else {
            Set<Long> mine = mine();
            List<WorkerRecord> held = registry.heldWorkers(namespace);
            mine.addAll(mine());
            long[] kv = new long[3 * held.size()];
            int i = 0;
            long own = maxAheadMillis(settings);
            for (WorkerRecord w : held) {
                kv[i++] = key(w.datacenterId(), w.workerId());
                // A holder with a longer window than this node's raises its HWM further ahead
                // of the same clock: read against this node's window, it would show this node
                // behind by the difference.
                kv[i++] = w.hwmMillis() - (w.maxAheadMillis() > 0 ? w.maxAheadMillis() : own);
                kv[i++] = w.hwmMillis();
            }
            r = new Reading(seq, time.nanoTime(), 0, Long.MAX_VALUE, kv, mine);
        }
        last = r;
        return r;
    }

    /**
     * Compares this node's clock with the fleet's on a fresh reading later than
     * {@code afterSeq}, leaving out the workers this node holds and {@code claimed} (-1 for
     * none).
     *
     * @throws RegistryException when the store did not answer
     */
    private Checked check(long claimed, long afterSeq) throws RegistryException {
        TimeSource time = settings.time();
        Reading r = reading(afterSeq);
        long now = time.currentTimeMillis();
        long elapsed = (time.nanoTime() - r.nanos) / 1_000_000;
        long lo;
        long hi;
        long reserved = Long.MAX_VALUE;
        String against;
        if (r.held == null) {
            lo = r.lo + elapsed;
            hi = r.hi + elapsed;
            against = "the store's clock";
        } else {
            Set<Long> mine = mine();
            mine.addAll(r.mine);
            mine.add(claimed);
            List<Long> others = new ArrayList<>();
            List<Long> hwms = new ArrayList<>();
            for (int i = 0; i < r.held.length; i += 3) {
                if (!mine.contains(r.held[i])) {
                    others.add(r.held[i + 1]);
                    hwms.add(r.held[i + 2]);
                }
            }
            if (others.size() < 2) {
                // Fewer than two other holders: no majority tells which clock is wrong, and one
                // holder's HWM left ahead by a clock that lied must not stop a healthy node.
                // Free workers' HWMs are no reference either; nor are this node's own, which
                // can only agree with its clock.
                skewMillis = 0;
                return new Checked(new Verdict(false, 0, null, null, false), r.seq);
            }
            // The lower median: one node ahead (or several, short of half) cannot move it. An
            // HWM bounds its holder's clock from below only (a paused holder's, or one whose
            // lease is lapsing, is stale), so the HWMs show a node behind, never ahead: only a
            // store clock does that, or confirms a forward step.
            Collections.sort(others);
            lo = others.get((others.size() - 1) / 2) + elapsed;
            // What the fleet has reserved: a renewing holder's clock is below its HWM. Only to
            // confirm a forward step that brings this node into agreement (a stale HWM lowers
            // it, which can only leave a step unconfirmed), never to find a node ahead.
            Collections.sort(hwms);
            reserved = hwms.get((hwms.size() - 1) / 2) + elapsed;
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
                } else if (hi != Long.MAX_VALUE || wall - maxSkew <= reserved) {
                    // Between the store clock's bounds, or between the other holders' clocks
                    // and what they have reserved: the step brings this node into agreement
                    // (a node set right after running behind), and minting on it dates no ID
                    // past the fleet's reservations.
                    h.confirmForwardStep();
                }
            }
        }
        long skew = now < lo ? now - lo : now > hi ? now - hi : 0;
        skewMillis = skew;
        Verdict v;
        if (skew < -maxSkew) {
            v = new Verdict(true, skew, Reason.CLOCK_BEHIND_FLEET, "clock is " + -skew
                    + " ms behind " + against + " (clock.max-skew " + maxSkew + " ms)", false);
        } else if (skew > maxSkew) {
            v = new Verdict(true, skew, Reason.CLOCK_AHEAD_OF_FLEET, "clock is " + skew
                    + " ms ahead of " + against + " (clock.max-skew " + maxSkew + " ms)", false);
        } else {
            v = new Verdict(true, skew, null, null, false);
        }
        return new Checked(v, r.seq);
    }

    /** The workers this node holds now. */
    private Set<Long> mine() {
        Set<Long> mine = new HashSet<>();
        for (Watch w : watches) {
            mine.add(w.held);
        }
        return mine;
    }
}

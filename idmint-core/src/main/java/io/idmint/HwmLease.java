package io.idmint;

import io.idmint.IdUnavailableException.Reason;
import io.idmint.spi.Claim;
import io.idmint.spi.ClaimRequest;
import io.idmint.spi.RegistryException;
import io.idmint.spi.WorkerRegistry;
import java.time.Duration;
import java.util.concurrent.Executor;

/**
 * The high-water-mark (HWM) protocol, once for every registry (docs/design.md, "Worker leases and
 * the high-water mark"): a worker ID held under a lease whose stored HWM fences what may be issued.
 * It claims a worker, reserves time ahead in the registry's HWM, and lets the generator issue only
 * up to the last <em>acknowledged</em> reservation, capped by the lease: {@code limit = from +
 * min(window, ttl, storeTimeout)}, where {@code from} is the time the reservation was taken from.
 * So a node that pauses, loses its store or is fenced can never issue a timestamp that another
 * holder of the worker may also issue: the next holder starts strictly above the stored HWM, which
 * is at least every limit this node was given.
 *
 * <p>All registry calls happen in {@link #maintain()}, one step at a time under this object's
 * lock, on the maintenance loop (or a test's thread). The lease sees its generator only as an
 * {@link LeaseIssuer}: what the protocol allows it to issue, and what it issued.
 */
final class HwmLease implements AutoCloseable {

    /**
     * After a failed step, the longest that wakes are ignored (cut to the period): a store that
     * refuses at once must not be retried at the request rate (docs/design.md, "Retries").
     */
    static final long RETRY_BACKOFF_MILLIS = 250;

    private final GeneratorSettings settings;
    private final LeaseIssuer issuer;
    private final WorkerRegistry registry;
    private final ClaimRequest request;
    private final TimeSource time;
    private final Layout layout;
    private final long leaseBudgetMillis;
    private final FleetClock fleet;
    private final FleetClock.Watch watch;
    private final LeaseStatus status;

    private Claim claim;
    /** The worker this lease held last, preferred when it claims again; -1 before any. */
    private int previousWorker = -1;
    private volatile long clockFaultMillis;
    private long lastAckNanos;
    /** Under clock.policy=fail: no claim before the clock reaches this (Unix ms). */
    private long claimNotBefore = Long.MIN_VALUE;
    private final MaintenanceLoop loop;

    HwmLease(GeneratorSettings settings, LeaseIssuer issuer, WorkerRegistry registry,
            ClaimRequest request, FleetClock fleet) {
        this.settings = settings;
        this.issuer = issuer;
        this.registry = registry;
        this.request = request;
        this.time = settings.time();
        this.layout = settings.layout();
        this.leaseBudgetMillis = Math.min(request.leaseTtlMillis(), settings.storeTimeoutMillis());
        this.loop = new MaintenanceLoop(this, time, settings.periodMillis());
        this.fleet = fleet;
        this.watch = fleet.watch();
        this.status = new LeaseStatus(settings.listener());
    }

    LeaseState state() {
        return status.state();
    }

    String detail() {
        return status.detail();
    }

    Reason reason() {
        return status.reason();
    }

    /** This node's clock minus the fleet's at the last fleet check (0 within its bounds). */
    long fleetSkewMillis() {
        return fleet.skewMillis();
    }

    /**
     * The first acquisition, on the caller's thread, so that bad configuration (a layout or
     * datacenter the registry refuses, corrupt state) fails the build loudly; with
     * {@code poolFullIsFatal}, so does a registry with no free worker ID (a striped build, which
     * must not start with fewer workers than asked for).
     *
     * @throws IllegalStateException with the {@link RegistryException} as its cause
     */
    synchronized void acquireOrThrow(boolean poolFullIsFatal) {
        RegistryException fatal = acquire(poolFullIsFatal);
        if (fatal != null) {
            status.releasedQuietly();
            throw new IllegalStateException(fatal.getMessage(), fatal);
        }
    }

    /**
     * Starts the maintenance loop on {@code executor}, which it occupies until {@link #close()}.
     * A loop that starts after close returns at once.
     */
    void start(Executor executor) {
        loop.start(executor);
    }

    /**
     * Asks the maintenance thread for a step now (runway ran out, clock fault). Within the backoff
     * after a failed step only a clock fault does.
     */
    void wake() {
        loop.wake(clockFaultMillis != 0);
    }

    /** Called by the hot path when the clock is too far behind under {@link ClockPolicy#FAIL}. */
    void clockFault(long behindMillis) {
        clockFaultMillis = behindMillis;
        wake();
    }

    /** One protocol step: acquire, or give up the worker after a clock fault, or extend. */
    synchronized void maintain() {
        if (status.state() == LeaseState.RELEASED) {
            return;
        }
        // Reading the offset forgets a held-back forward step that was set right since, so that
        // a later step waits afresh even when no fleet check runs (a store outage).
        time.wallClockOffsetMillis();
        if (claim == null) {
            acquire(false);
        } else if (clockFaultMillis > 0) {
            long behind = clockFaultMillis;
            clockFaultMillis = 0;
            giveUp(Reason.CLOCK_BEHIND, "clock fell " + behind + " ms behind the last issued ID; "
                    + "worker released, re-joining when the clock has caught up");
        } else {
            // Checked before renewing: a clock the fleet disputes raises no HWM. One fault skips
            // a renewal (the runway covers several); a second in a row gives the worker up (see
            // FleetClock.whileHeld).
            FleetClock.Verdict v = status.state() == LeaseState.ACTIVE
                    ? watch.whileHeld() : null;
            if (v == null) {
                extend();
            } else if (v.repeated()
                    || time.nanoTime() - lastAckNanos > leaseBudgetMillis * 1_000_000) {
                // A renewal held back is still a renewal missed: past the lease budget the
                // worker goes, as in extend(), or this node would issue on a lapsed lease.
                giveUp(v.fault(), v.why() + "; worker released, re-joining when the clock agrees");
            } else {
                status.detail(v.why() + "; renewal held back until a second check");
            }
        }
    }

    /**
     * Checks the clock, claims and reserves. Returns the exception when retrying cannot fix it,
     * after recording it.
     *
     * <p>No worker is claimed while the fleet clock check finds this node's clock past
     * {@code clock.max-skew}. Under {@link ClockPolicy#FAIL} the clock must not be behind by
     * more than the wait: behind this generator's own last ID (after a clock fault), or behind
     * the claimed worker's HWM. The preference (this lease's previous worker, else the
     * configured one) yields when its HWM is ahead: it is held while another free worker is
     * claimed (so that the claim cannot return it), then released unchanged. The node waits when
     * that one is ahead too (the registry gives one behind the clock when there is one), or
     * when, with nothing in the fleet to compare with, the preferred worker is further ahead
     * than a reservation window: then this clock may be what is wrong (guarantee 2: pause rather
     * than guess).
     */
    private RegistryException acquire(boolean poolFullIsFatal) {
        boolean fail = settings.clockPolicy() == ClockPolicy.FAIL;
        long maxWait = settings.maxWaitMillis();
        long ownTick = issuer.lastRetiredTick();
        long own = ownTick == Long.MIN_VALUE ? Long.MIN_VALUE : layout.millisOf(ownTick);
        long now = time.currentTimeMillis();
        if (fail && own != Long.MIN_VALUE && own - now > maxWait) {
            status.set(LeaseState.ACQUIRING, Reason.CLOCK_BEHIND, "clock is " + (own - now)
                    + " ms behind the last ID this node issued; waiting for it to catch up "
                    + "(clock.policy=fail)");
            return null;
        }
        if (fail && now < claimNotBefore) {
            return null; // still waiting for the clock; the state says why
        }
        boolean reference = false;
        boolean checked = false;
        ClaimRequest req = previousWorker < 0 ? request : prefer(previousWorker);
        Claim passed = null;
        try {
            for (;;) {
                Claim c;
                try {
                    c = registry.claim(req);
                } catch (RegistryException e) {
                    if (passed != null && e.kind() == RegistryException.Kind.POOL_FULL) {
                        return waitFor(passed, "it is the only free worker");
                    }
                    status.set(LeaseState.ACQUIRING, e.getMessage());
                    boolean fatal = !e.retryable()
                            || poolFullIsFatal && e.kind() == RegistryException.Kind.POOL_FULL;
                    return fatal ? e : null;
                }
                if (!checked) {
                    // After the first claim, not before: a registry may start its session with
                    // the first call (ZooKeeper's lifetime is the lease TTL the claim carries),
                    // and the claimed worker is then left out of the comparison. Before any
                    // reservation all the same: a disputed clock raises no HWM.
                    checked = true;
                    FleetClock.Verdict v;
                    try {
                        v = watch.beforeReserve(c.datacenterId(), c.workerId());
                    } catch (RegistryException e) {
                        quietRelease(c, c.hwmMillis());
                        status.set(LeaseState.ACQUIRING, e.getMessage());
                        return e.retryable() ? null : e;
                    }
                    reference = v.reference();
                    if (v.fault() != null) {
                        quietRelease(c, c.hwmMillis());
                        status.set(LeaseState.ACQUIRING, v.fault(), v.why()
                                + "; taking no worker until it agrees");
                        return null;
                    }
                }
                now = time.currentTimeMillis();
                long ahead = c.hwmMillis() - now;
                if (!fail || ahead <= maxWait) {
                    String note = passed == null ? "" : "; preferred worker "
                            + passed.workerId() + " yielded: its high-water mark is "
                            + (passed.hwmMillis() - now) + " ms ahead of the clock";
                    if (passed != null) {
                        // Released before reserving, so that the step ends on the reservation's
                        // answer: a slow release after it would leave the state ACTIVE on a
                        // lease that may have lapsed meanwhile.
                        quietRelease(passed, passed.hwmMillis());
                        passed = null;
                    }
                    return reserve(c, now, note);
                }
                if (passed == null && c.workerId() == req.preferredWorkerId()
                        && (reference || ahead <= settings.windowMillis() + maxWait)) {
                    passed = c;
                    req = req.withoutPreference();
                    continue;
                }
                quietRelease(c, c.hwmMillis());
                boolean first = passed == null || c.hwmMillis() <= passed.hwmMillis();
                return waitFor(first ? c : passed, passed == null
                        && c.workerId() == req.preferredWorkerId()
                        ? "no other holder or store clock tells which clock is wrong"
                        : "every free worker's is ahead");
            }
        } finally {
            if (passed != null) {
                quietRelease(passed, passed.hwmMillis());
            }
        }
    }

    /** Waits for the clock to reach a claimed worker's HWM; its caller releases the worker. */
    private RegistryException waitFor(Claim c, String why) {
        status.set(LeaseState.ACQUIRING, Reason.CLOCK_BEHIND, "clock is " + (c.hwmMillis()
                - time.currentTimeMillis()) + " ms behind the high-water mark of worker "
                + c.workerId() + " (" + why + "); waiting for it to catch up (clock.policy=fail)");
        claimNotBefore = c.hwmMillis() - settings.maxWaitMillis(); // claiming sooner is useless
        return null;
    }

    /** The configured request, preferring {@code workerId}. */
    private ClaimRequest prefer(int workerId) {
        ClaimRequest r = request;
        return new ClaimRequest(r.namespace(), r.layoutSpec(), r.datacenterId(),
                r.datacenterName(), r.maxWorkerId(), workerId, r.leaseTtlMillis(), r.holder(),
                r.maxAheadMillis());
    }

    private RegistryException reserve(Claim claimed, long now, String note) {
        Claim c = claimed;
        long from = Math.max(now, c.hwmMillis());
        long until = from + settings.windowMillis();
        long sendNanos = time.nanoTime();
        try {
            c = c.withToken(registry.extend(c, until));
        } catch (RegistryException e) {
            quietRelease(c, c.hwmMillis());
            status.set(LeaseState.ACQUIRING, "claimed worker " + c.workerId()
                    + " but could not reserve time: " + e.getMessage());
            return e.retryable() || e.kind() == RegistryException.Kind.LEASE_LOST ? null : e;
        }
        claim = c;
        lastAckNanos = sendNanos;
        previousWorker = c.workerId();
        watch.held(c.datacenterId(), c.workerId());
        issuer.install(c.datacenterId(), c.workerId(), layout.tickOf(c.hwmMillis()),
                layout.tickOf(limit(from)));
        status.set(LeaseState.ACTIVE, "holding worker " + c.workerId() + " of datacenter "
                + c.datacenterId() + note);
        return null;
    }

    private void extend() {
        long now = time.currentTimeMillis();
        long last = issuer.lastIssuedTick();
        long from = last == Long.MIN_VALUE ? now : Math.max(now, layout.millisOf(last));
        long until = from + settings.windowMillis();
        long sendNanos = time.nanoTime();
        try {
            claim = claim.withToken(registry.extend(claim, until));
            issuer.extendLimit(layout.tickOf(limit(from)));
            lastAckNanos = sendNanos;
            status.set(LeaseState.ACTIVE, "holding worker " + claim.workerId() + " of datacenter "
                    + claim.datacenterId());
        } catch (RegistryException e) {
            if (e.kind() == RegistryException.Kind.LEASE_LOST) {
                issuer.retire(new IdUnavailableException(Reason.NO_LEASE, "worker "
                        + claim.workerId() + " was lost: " + e.getMessage(),
                                Duration.ofSeconds(1)));
                claim = null;
                watch.released();
                status.set(LeaseState.LOST, e.getMessage());
                return;
            }
            long silentMillis = (time.nanoTime() - lastAckNanos) / 1_000_000;
            if (silentMillis > leaseBudgetMillis) {
                giveUp(Reason.NO_LEASE, "registry unreachable for " + silentMillis + " ms: "
                        + e.getMessage());
            } else {
                status.set(LeaseState.DEGRADED, "renewal failed, issuing within the reserved "
                        + "runway: " + e.getMessage());
            }
        }
    }

    /**
     * The issuance limit after a reservation from {@code from} (the clock, or the logical clock
     * when it is ahead) was acknowledged: the reservation, cut short to the lease budget. The
     * maintenance step also gives the worker up once the store has been silent that long.
     */
    private long limit(long from) {
        return from + Math.min(settings.windowMillis(), leaseBudgetMillis);
    }

    /** Stops issuing and releases the worker with the exact last issued time. */
    private void giveUp(Reason reason, String why) {
        long last = issuer.retire(new IdUnavailableException(reason, why,
                Duration.ofSeconds(1)));
        Claim c = claim;
        claim = null;
        watch.released();
        status.set(LeaseState.LOST, reason, why);
        quietRelease(c, finalHwm(c, last));
    }

    private long finalHwm(Claim c, long lastTick) {
        return lastTick == Long.MIN_VALUE ? c.hwmMillis()
                : Math.max(c.hwmMillis(), layout.millisOf(lastTick));
    }

    private void quietRelease(Claim c, long hwm) {
        try {
            registry.release(c, hwm);
        } catch (RegistryException e) {
            // The claim lapses with its lease; its HWM stays at the last reservation, which is
            // at least every timestamp issued, so nothing is lost by not lowering it.
            status.detail("release of worker " + c.workerId() + " failed: " + e.getMessage());
        }
    }

    @Override
    public void close() {
        loop.close();
        synchronized (this) {
            if (status.state() == LeaseState.RELEASED) {
                return;
            }
            long last = issuer.retire(new IdUnavailableException(Reason.CLOSED,
                    "generator is closed", Duration.ZERO));
            if (claim != null) {
                Claim c = claim;
                claim = null;
                watch.released();
                quietRelease(c, finalHwm(c, last));
            }
            status.set(LeaseState.RELEASED, "closed; worker released");
        }
    }
}

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
 * {@link Issuer}: what the protocol allows it to issue, and what it issued.
 */
final class HwmLease implements AutoCloseable {

    /**
     * After a failed step, the longest that wakes are ignored (cut to the period): a store that
     * refuses at once must not be retried at the request rate (docs/design.md, "Retries").
     */
    static final long RETRY_BACKOFF_MILLIS = 250;

    /** The part of the generator the protocol drives. */
    interface Issuer {

        /**
         * Starts issuing on a newly claimed worker, above {@code hwmTick} and up to
         * {@code limitTick}.
         */
        void install(int datacenterId, int workerId, long hwmTick, long limitTick);

        /** Raises the issuance limit after an acknowledged reservation. */
        void extendLimit(long limitTick);

        /**
         * Stops issuing, atomically; returns the last tick issued, or {@link Long#MIN_VALUE}.
         * Later calls throw {@code reason}.
         */
        long retire(IdUnavailableException reason);

        /** The last tick issued on the held worker, or {@link Long#MIN_VALUE}. */
        long lastIssuedTick();

        /** The last tick issued on a worker given up before, or {@link Long#MIN_VALUE}. */
        long lastRetiredTick();
    }

    private final GeneratorSettings settings;
    private final Issuer issuer;
    private final WorkerRegistry registry;
    private final ClaimRequest request;
    private final TimeSource time;
    private final Layout layout;
    private final long leaseBudgetMillis;

    private Claim claim;
    private volatile LeaseState state = LeaseState.ACQUIRING;
    private volatile String detail = "acquiring a worker ID";
    private volatile long clockFaultMillis;
    private long lastAckNanos;
    /** Under clock.policy=fail: no claim before the clock reaches this (Unix ms). */
    private long claimNotBefore = Long.MIN_VALUE;
    /**
     * The maintenance thread waits on this, never on {@code this}: {@code this} is held for whole
     * registry calls, and the hot path must be able to wake the thread without waiting for one.
     */
    private final Object signal = new Object();
    private boolean wakeRequested;
    /** Whether the last step failed, and when it ended ({@link TimeSource#nanoTime()}). */
    private boolean failed;
    private long failedAtNanos;
    private final long backoffNanos;
    private boolean closing;
    /** The thread running the maintenance loop, while it runs. */
    private Thread loop;

    HwmLease(GeneratorSettings settings, Issuer issuer, WorkerRegistry registry,
            ClaimRequest request) {
        this.settings = settings;
        this.issuer = issuer;
        this.registry = registry;
        this.request = request;
        this.time = settings.time();
        this.layout = settings.layout();
        this.leaseBudgetMillis = Math.min(request.leaseTtlMillis(), settings.storeTimeoutMillis());
        this.backoffNanos = Math.min(settings.periodMillis(), RETRY_BACKOFF_MILLIS) * 1_000_000;
    }

    LeaseState state() {
        return state;
    }

    String detail() {
        return detail;
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
            state = LeaseState.RELEASED;
            throw new IllegalStateException(fatal.getMessage(), fatal);
        }
    }

    /**
     * Starts the maintenance loop on {@code executor}, which it occupies until {@link #close()}.
     * A loop that starts after close returns at once.
     */
    void start(Executor executor) {
        executor.execute(this::run);
    }

    // Not interrupted to stop: an interrupt closes a FileChannel mid-write. close() sets
    // closing and notifies instead, then waits for the loop to end.
    private void run() {
        synchronized (signal) {
            if (closing) {
                return;
            }
            loop = Thread.currentThread();
        }
        try {
            for (;;) {
                maintain();
                long waitMillis = state == LeaseState.ACTIVE || state == LeaseState.DEGRADED
                        ? settings.periodMillis() : Math.min(settings.periodMillis(), 1000);
                synchronized (signal) {
                    failed = state != LeaseState.ACTIVE;
                    if (failed) {
                        // Wakes wait for the backoff (see wake()), one during the step too. A
                        // caller that finds the clock behind reports it again, and that counts.
                        failedAtNanos = time.nanoTime();
                        wakeRequested = false;
                    }
                    if (!wakeRequested && !closing) {
                        signal.wait(waitMillis);
                    }
                    wakeRequested = false;
                    if (closing) {
                        return;
                    }
                }
            }
        } catch (InterruptedException e) {
            // the executor is shutting down: the lease lapses, close() still releases
            Thread.currentThread().interrupt();
        } finally {
            synchronized (signal) {
                loop = null;
                signal.notifyAll();
            }
        }
    }

    /**
     * Asks the maintenance thread for a step now (runway ran out, clock fault). Within the backoff
     * after a failed step only a clock fault does: the next renewal waits for the backoff's first
     * wake, or the period.
     */
    void wake() {
        synchronized (signal) {
            if (failed && clockFaultMillis == 0 && time.nanoTime() - failedAtNanos < backoffNanos) {
                return;
            }
            wakeRequested = true;
            signal.notifyAll();
        }
    }

    /** Called by the hot path when the clock is too far behind under {@link ClockPolicy#FAIL}. */
    void clockFault(long behindMillis) {
        clockFaultMillis = behindMillis;
        wake();
    }

    /** One protocol step: acquire, or give up the worker after a clock fault, or extend. */
    synchronized void maintain() {
        if (state == LeaseState.RELEASED) {
            return;
        }
        if (claim == null) {
            acquire(false);
        } else if (clockFaultMillis > 0) {
            long behind = clockFaultMillis;
            clockFaultMillis = 0;
            giveUp(Reason.CLOCK_BEHIND, "clock fell " + behind + " ms behind the last issued ID; "
                    + "worker released, re-joining when the clock has caught up");
        } else {
            extend();
        }
    }

    /**
     * Claims and reserves. Returns the exception when retrying cannot fix it, after recording it.
     *
     * <p>Under {@link ClockPolicy#FAIL} the clock must not be behind by more than the wait: behind
     * this generator's own last ID (after a clock fault), or behind the claimed worker's HWM. A
     * worker whose HWM is ahead only by a reservation window is what a crash leaves behind; then
     * the coldest free worker is tried once instead. Further ahead, the clock is what is wrong,
     * and the node waits (guarantee 2: pause rather than guess).
     */
    private RegistryException acquire(boolean poolFullIsFatal) {
        boolean fail = settings.clockPolicy() == ClockPolicy.FAIL;
        long maxWait = settings.maxWaitMillis();
        long ownTick = issuer.lastRetiredTick();
        long own = ownTick == Long.MIN_VALUE ? Long.MIN_VALUE : layout.millisOf(ownTick);
        long now = time.currentTimeMillis();
        if (fail && own != Long.MIN_VALUE && own - now > maxWait) {
            setState(LeaseState.ACQUIRING, "clock is " + (own - now) + " ms behind the last ID "
                    + "this node issued; waiting for it to catch up (clock.policy=fail)");
            return null;
        }
        if (fail && now < claimNotBefore) {
            return null; // still waiting for the clock; the state says why
        }
        ClaimRequest req = request;
        for (;;) {
            Claim c;
            try {
                c = registry.claim(req);
            } catch (RegistryException e) {
                setState(LeaseState.ACQUIRING, e.getMessage());
                boolean fatal = !e.retryable()
                        || poolFullIsFatal && e.kind() == RegistryException.Kind.POOL_FULL;
                return fatal ? e : null;
            }
            now = time.currentTimeMillis();
            long ahead = c.hwmMillis() - now;
            if (!fail || ahead <= maxWait) {
                return reserve(c, now);
            }
            quietRelease(c, c.hwmMillis());
            setState(LeaseState.ACQUIRING, "clock is " + ahead + " ms behind the high-water mark "
                    + "of worker " + c.workerId() + "; waiting for it to catch up "
                    + "(clock.policy=fail)");
            if (ahead > settings.windowMillis() + maxWait || req.preferredWorkerId() < 0) {
                // Claiming again before the clock has caught up would only rewrite the state.
                claimNotBefore = c.hwmMillis() - maxWait;
                return null;
            }
            req = req.withoutPreference();
        }
    }

    private RegistryException reserve(Claim claimed, long now) {
        Claim c = claimed;
        long from = Math.max(now, c.hwmMillis());
        long until = from + settings.windowMillis();
        long sendNanos = time.nanoTime();
        try {
            c = c.withToken(registry.extend(c, until));
        } catch (RegistryException e) {
            quietRelease(c, c.hwmMillis());
            setState(LeaseState.ACQUIRING, "claimed worker " + c.workerId()
                    + " but could not reserve time: " + e.getMessage());
            return e.retryable() || e.kind() == RegistryException.Kind.LEASE_LOST ? null : e;
        }
        claim = c;
        lastAckNanos = sendNanos;
        issuer.install(c.datacenterId(), c.workerId(), layout.tickOf(c.hwmMillis()),
                layout.tickOf(limit(from)));
        setState(LeaseState.ACTIVE, "holding worker " + c.workerId() + " of datacenter "
                + c.datacenterId());
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
            setState(LeaseState.ACTIVE, "holding worker " + claim.workerId() + " of datacenter "
                    + claim.datacenterId());
        } catch (RegistryException e) {
            if (e.kind() == RegistryException.Kind.LEASE_LOST) {
                issuer.retire(new IdUnavailableException(Reason.NO_LEASE, "worker "
                        + claim.workerId() + " was lost: " + e.getMessage(),
                                Duration.ofSeconds(1)));
                claim = null;
                setState(LeaseState.LOST, e.getMessage());
                return;
            }
            long silentMillis = (time.nanoTime() - lastAckNanos) / 1_000_000;
            if (silentMillis > leaseBudgetMillis) {
                giveUp(Reason.NO_LEASE, "registry unreachable for " + silentMillis + " ms: "
                        + e.getMessage());
            } else {
                setState(LeaseState.DEGRADED, "renewal failed, issuing within the reserved runway: "
                        + e.getMessage());
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
        setState(LeaseState.LOST, why);
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
            detail = "release of worker " + c.workerId() + " failed: " + e.getMessage();
        }
    }

    private void setState(LeaseState next, String why) {
        LeaseState prev = state;
        detail = why;
        if (prev != next) {
            state = next;
            settings.listener().onStateChange(prev, next, why);
        }
    }

    @Override
    public void close() {
        synchronized (signal) {
            closing = true;
            signal.notifyAll();
            while (loop != null && loop != Thread.currentThread()) {
                try {
                    signal.wait();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
        }
        synchronized (this) {
            if (state == LeaseState.RELEASED) {
                return;
            }
            long last = issuer.retire(new IdUnavailableException(Reason.CLOSED,
                    "generator is closed", Duration.ZERO));
            if (claim != null) {
                Claim c = claim;
                claim = null;
                quietRelease(c, finalHwm(c, last));
            }
            setState(LeaseState.RELEASED, "closed; worker released");
        }
    }
}

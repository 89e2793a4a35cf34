package io.idmint;

import io.idmint.IdUnavailableException.Reason;
import io.idmint.spi.Claim;
import io.idmint.spi.ClaimRequest;
import io.idmint.spi.RegistryException;
import io.idmint.spi.WorkerRegistry;
import java.time.Duration;

/**
 * The high-water-mark protocol (DESIGN §4), once for every registry. It claims a worker, reserves
 * time ahead in the registry's HWM, and lets the generator issue only up to the last
 * <em>acknowledged</em> reservation, capped by the lease: {@code limit = from + min(window, ttl,
 * storeTimeout)}, where {@code from} is the time the reservation was taken from. So a node that
 * pauses, loses its store or is fenced can never issue a timestamp that another holder of the
 * worker may also issue: the next holder starts strictly above the stored HWM, which is at least
 * every limit this node was given.
 *
 * <p>All registry calls happen in {@link #maintain()}, one step at a time under this object's
 * lock, on the maintenance thread (or a test's thread).
 */
final class LeasedWorker implements AutoCloseable {

    private final SnowflakeGenerator generator;
    private final WorkerRegistry registry;
    private final ClaimRequest request;
    private final TimeSource time;
    private final Duration window;
    private final Duration period;
    private final long leaseBudgetMillis;
    private final GeneratorListener listener;

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
    private boolean closing;
    private Thread thread;

    LeasedWorker(SnowflakeGenerator generator, WorkerRegistry registry, ClaimRequest request,
            Duration window, Duration period, Duration storeTimeout, GeneratorListener listener) {
        this.generator = generator;
        this.registry = registry;
        this.request = request;
        this.time = generator.time();
        this.window = window;
        this.period = period;
        this.leaseBudgetMillis = Math.min(request.leaseTtlMillis(), storeTimeout.toMillis());
        this.listener = listener;
        generator.attach(this);
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

    /** Starts the maintenance thread. */
    void start(String name) {
        synchronized (signal) {
            thread = new Thread(this::run, name);
            thread.setDaemon(true);
            thread.start();
        }
    }

    // Not interrupted to stop: an interrupt closes a FileChannel mid-write. close() sets
    // closing and notifies instead.
    private void run() {
        for (;;) {
            synchronized (signal) {
                if (closing) {
                    return;
                }
            }
            maintain();
            long waitMillis = state == LeaseState.ACTIVE || state == LeaseState.DEGRADED
                    ? period.toMillis() : Math.min(period.toMillis(), 1000);
            synchronized (signal) {
                try {
                    if (!wakeRequested && !closing) {
                        signal.wait(waitMillis);
                    }
                } catch (InterruptedException e) {
                    return;
                }
                wakeRequested = false;
            }
        }
    }

    /** Asks the maintenance thread for a step now (runway ran out, clock fault). */
    void wake() {
        synchronized (signal) {
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
        boolean fail = generator.clockPolicy() == ClockPolicy.FAIL;
        long maxWait = generator.maxWaitMillis();
        long own = generator.lastRetiredMillis();
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
            if (ahead > window.toMillis() + maxWait || req.preferredWorkerId() < 0) {
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
        long until = from + window.toMillis();
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
        Layout layout = generator.layout();
        generator.install(c.datacenterId(), c.workerId(), layout.tickOf(c.hwmMillis()),
                layout.tickOf(limit(from)));
        setState(LeaseState.ACTIVE, "holding worker " + c.workerId() + " of datacenter "
                + c.datacenterId());
        return null;
    }

    private void extend() {
        Layout layout = generator.layout();
        long now = time.currentTimeMillis();
        long last = generator.lastIssuedTick();
        long from = last == Long.MIN_VALUE ? now : Math.max(now, layout.millisOf(last));
        long until = from + window.toMillis();
        long sendNanos = time.nanoTime();
        try {
            claim = claim.withToken(registry.extend(claim, until));
            generator.extendLimit(layout.tickOf(limit(from)));
            lastAckNanos = sendNanos;
            setState(LeaseState.ACTIVE, "holding worker " + claim.workerId() + " of datacenter "
                    + claim.datacenterId());
        } catch (RegistryException e) {
            if (e.kind() == RegistryException.Kind.LEASE_LOST) {
                generator.retire(new IdUnavailableException(Reason.NO_LEASE, "worker "
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
        return from + Math.min(window.toMillis(), leaseBudgetMillis);
    }

    /** Stops issuing and releases the worker with the exact last issued time. */
    private void giveUp(Reason reason, String why) {
        long last = generator.retire(new IdUnavailableException(reason, why,
                Duration.ofSeconds(1)));
        Claim c = claim;
        claim = null;
        setState(LeaseState.LOST, why);
        quietRelease(c, finalHwm(c, last));
    }

    private long finalHwm(Claim c, long lastTick) {
        return lastTick == Long.MIN_VALUE ? c.hwmMillis()
                : Math.max(c.hwmMillis(), generator.layout().millisOf(lastTick));
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
            listener.onStateChange(prev, next, why);
        }
    }

    @Override
    public void close() {
        Thread t;
        synchronized (signal) {
            t = thread;
            thread = null;
            closing = true;
            signal.notifyAll();
        }
        if (t != null && t != Thread.currentThread()) {
            try {
                t.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        synchronized (this) {
            if (state == LeaseState.RELEASED) {
                return;
            }
            long last = generator.retire(new IdUnavailableException(Reason.CLOSED,
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

package io.idmint.server.ops;

import io.idmint.GeneratorListener;
import io.idmint.GeneratorStatus;
import io.idmint.IdUnavailableException;
import io.idmint.LeaseState;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The generator's listener in {@code serve}: counts into {@link Metrics}, and logs what an
 * operator must see once each, not once per request (docs/observability.md, "Log events"):
 *
 * <ul>
 *   <li>{@code lease}: every lease state change, with from, to, worker, runway_ms and reason;
 *   <li>{@code clock}: a clock fault, once per fault: the wall clock found stepped back by more
 *       than clock.max-wait (checked each second; the generator's clock does not follow it, but
 *       a restart would: it would wait or take another worker), or stepped forwards by more
 *       than clock.max-forward-step (held back until confirmed), and again once back in step;
 *       or the generator's clock found behind its last issued ID (calls that see the same fault
 *       while it lasts, its size on the monotonic clock, add nothing);
 *   <li>{@code pause}: the whole process stood still for a second or more (SIGSTOP, a frozen
 *       VM, a long stop-the-world pause), once per pause ({@link PauseDetector});
 *   <li>{@code refusal}: the first request refused for a reason (no lease, clock behind, runway
 *       used up…); the next line for it comes after an ID was issued again.
 * </ul>
 */
public final class EventLog implements GeneratorListener {

    private static final Logger LOG = Logger.getLogger("io.idmint.server.events");

    private final Metrics metrics;
    private volatile Supplier<GeneratorStatus> status;
    /** The lease lines of the start, until {@link #status} is known or the start failed. */
    private final List<Runnable> early = new ArrayList<>();
    /** Whether lines are logged as they come: after {@link #status} or {@link #startFailed}. */
    private boolean started;
    /** When the clock fault last logged is over (System.nanoTime()); 0: none logged yet. */
    private volatile long clockFaultEnds;
    /** The reason of the last refusal logged, or null once an ID was issued since. */
    private volatile IdUnavailableException.Reason refusing;

    private final long maxOffsetMillis;
    private final long maxForwardMillis;
    private volatile int lastWorker = -1;
    private volatile int lastDatacenter = -1;
    /** -1 while the wall clock is stepped back past the limit, 1 forwards, as last checked. */
    private int stepped;

    /**
     * @param maxClockWait how far back the wall clock may step before it is a fault
     * @param maxForwardStep how far forwards it may step and still be followed at once
     */
    public EventLog(Metrics metrics, java.time.Duration maxClockWait,
            java.time.Duration maxForwardStep) {
        this.metrics = metrics;
        this.maxOffsetMillis = Math.max(1, maxClockWait.toMillis());
        this.maxForwardMillis = maxForwardStep.toMillis();
    }

    /** Checks the wall clock against the generator's (each second, on one thread). */
    public void checkClock() {
        Supplier<GeneratorStatus> source = status;
        if (source == null) {
            return;
        }
        long offset = source.get().clockOffsetMillis();
        int now = offset < -maxOffsetMillis ? -1 : offset > maxForwardMillis ? 1 : 0;
        if (now == stepped) {
            return;
        }
        stepped = now;
        Map<String, Object> f = fields();
        f.put("event", "clock");
        f.put("offset_ms", offset);
        f.put("reason", now < 0 ? "the wall clock stepped back " + -offset + " ms (more than "
                + "clock.max-wait, " + maxOffsetMillis + " ms); IDs follow the monotonic clock, "
                + "but a restart now would wait for it or take another worker"
                : now > 0 ? "the wall clock stepped forwards " + offset + " ms (more than "
                + "clock.max-forward-step, " + maxForwardMillis + " ms); IDs follow the "
                + "monotonic clock until the fleet clock check confirms the step, or it has "
                + "persisted a minute undisputed"
                : "the wall clock is back in step");
        Logs.event(LOG, now != 0 ? Level.WARNING : Level.INFO, now < 0 ? "clock fault"
                : now > 0 ? "clock step held back" : "clock back in step", f);
    }

    /**
     * Where the worker and runway of each line are read from, once the generator exists; logs
     * the changes made while it was being built, with the worker it holds now.
     */
    public void status(Supplier<GeneratorStatus> source) {
        flush(source);
    }

    /**
     * The generator could not be built: logs the lease lines gathered so far (a worker taken,
     * then lost…), without a status to read the worker from, then every later one as it comes.
     */
    public void startFailed() {
        flush(null);
    }

    private void flush(Supplier<GeneratorStatus> source) {
        List<Runnable> pending;
        synchronized (this) {
            if (started) {
                // Already known (a start that failed later calls again): nothing is pending.
                return;
            }
            this.status = source;
            started = true;
            pending = List.copyOf(early);
            early.clear();
        }
        // In the order they came. Not under a lock: fields() asks the generator.
        pending.forEach(Runnable::run);
    }

    @Override
    public void onStateChange(LeaseState from, LeaseState to, String detail) {
        synchronized (this) {
            if (!started) {
                early.add(() -> log(from, to, detail));
                return;
            }
        }
        log(from, to, detail);
    }

    private void log(LeaseState from, LeaseState to, String detail) {
        Map<String, Object> f = fields();
        f.put("event", "lease");
        f.put("from", from);
        f.put("to", to);
        f.put("reason", detail);
        Logs.event(LOG, to == LeaseState.ACTIVE || to == LeaseState.RELEASED ? Level.INFO
                : Level.WARNING, "worker lease " + from + " -> " + to, f);
    }

    @Override
    public void onSequenceWait() {
        metrics.onSequenceWait();
    }

    @Override
    public void onClockBehind(long behindMillis) {
        metrics.onClockBehind(behindMillis);
        long now = System.nanoTime();
        long ends = clockFaultEnds;
        if (ends != 0 && now - ends < 0) {
            return;
        }
        synchronized (this) {
            if (clockFaultEnds != 0 && now - clockFaultEnds < 0) {
                return;
            }
            clockFaultEnds = now + behindMillis * 1_000_000L;
        }
        Map<String, Object> f = fields();
        f.put("event", "clock");
        f.put("behind_ms", behindMillis);
        f.put("reason", "clock is " + behindMillis + " ms behind the last issued ID");
        Logs.event(LOG, Level.WARNING, "clock fault", f);
    }

    /** A request the generator refused; logs the first of each reason. */
    public void refused(IdUnavailableException e) {
        IdUnavailableException.Reason reason = e.reason();
        if (refusing == reason) {
            return;
        }
        synchronized (this) {
            if (refusing == reason) {
                return;
            }
            refusing = reason;
        }
        Map<String, Object> f = fields();
        f.put("event", "refusal");
        f.put("code", reason);
        f.put("reason", e.getMessage());
        Logs.event(LOG, Level.WARNING, "refusing requests", f);
    }

    /** IDs were issued: the next refusal is news again. Costs a volatile read when nothing is. */
    public void issued() {
        if (refusing != null) {
            refusing = null;
        }
    }

    /**
     * The whole process stood still for {@code millis} (SIGSTOP, a frozen VM, a long
     * stop-the-world pause): nothing ran, renewals included.
     */
    public void paused(long millis) {
        Map<String, Object> f = fields();
        f.put("event", "pause");
        f.put("paused_ms", millis);
        Logs.event(LOG, Level.WARNING, "process paused for " + millis + " ms (SIGSTOP, a frozen "
                + "VM or a stop-the-world pause): no thread ran, lease renewals included", f);
    }

    /**
     * The worker, datacenter and runway now; once the worker is lost or released, the worker
     * and datacenter it had.
     */
    private Map<String, Object> fields() {
        Map<String, Object> f = new LinkedHashMap<>();
        Supplier<GeneratorStatus> source = status;
        GeneratorStatus s = source == null ? null : source.get();
        if (s != null && s.workerId() >= 0) {
            lastWorker = s.workerId();
            lastDatacenter = s.datacenterId();
        }
        f.put("worker", lastWorker);
        f.put("datacenter", lastDatacenter);
        f.put("runway_ms", s == null ? 0 : s.runwayMillis());
        return f;
    }
}

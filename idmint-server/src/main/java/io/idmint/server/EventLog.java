package io.idmint.server;

import io.idmint.GeneratorListener;
import io.idmint.GeneratorStatus;
import io.idmint.IdUnavailableException;
import io.idmint.LeaseState;
import java.util.LinkedHashMap;
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
 *   <li>{@code clock}: a clock fault (the clock found behind the last issued ID), once per fault:
 *       calls that see the same fault while it lasts (its size, on the monotonic clock) add
 *       nothing;
 *   <li>{@code refusal}: the first request refused for a reason (no lease, clock behind, runway
 *       used up…); the next line for it comes after an ID was issued again.
 * </ul>
 */
final class EventLog implements GeneratorListener {

    private static final Logger LOG = Logger.getLogger("io.idmint.server.events");

    private final Metrics metrics;
    private volatile Supplier<GeneratorStatus> status;
    /** When the clock fault last logged is over (System.nanoTime()); 0: none logged yet. */
    private volatile long clockFaultEnds;
    /** The reason of the last refusal logged, or null once an ID was issued since. */
    private volatile IdUnavailableException.Reason refusing;

    EventLog(Metrics metrics) {
        this.metrics = metrics;
    }

    /** Where the worker and runway of each line are read from, once the generator exists. */
    void status(Supplier<GeneratorStatus> source) {
        this.status = source;
    }

    @Override
    public void onStateChange(LeaseState from, LeaseState to, String detail) {
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
    void refused(IdUnavailableException e) {
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
    void issued() {
        if (refusing != null) {
            refusing = null;
        }
    }

    private Map<String, Object> fields() {
        Map<String, Object> f = new LinkedHashMap<>();
        Supplier<GeneratorStatus> source = status;
        GeneratorStatus s = source == null ? null : source.get();
        f.put("worker", s == null ? -1 : s.workerId());
        f.put("datacenter", s == null ? -1 : s.datacenterId());
        f.put("runway_ms", s == null ? 0 : s.runwayMillis());
        return f;
    }
}

package io.idmint.segment;

import io.idmint.IdUnavailableException;
import io.idmint.IdUnavailableException.Reason;
import io.idmint.TimeSource;
import io.idmint.spi.Range;
import io.idmint.spi.RangeStore;
import io.idmint.spi.RegistryException;
import io.idmint.spi.UnknownTagException;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One serial on this node ({@link Serials#serial}): values of the period the node's clock is in,
 * written in the serial's template. Thread-safe; values of one period are increasing in the
 * order calls return.
 *
 * <p><b>Periods.</b> Each period has a counter of its own, the segment tag {@code
 * name~label} ({@code invoice~2026-11-28}), created by whichever node reaches the period first
 * (the store's create is atomic: a node that loses the race just uses it). A node takes
 * {@code step} values of a period at a time. Every call reads the clock: once the period has
 * ended by this node's clock, the rest of its range is dropped (counted in {@link #stats()}) and
 * never handed out, and the new period's counter is used. A clock stepped back into an earlier
 * period takes a new range of that period's counter from the store, above every value issued
 * from it: no value is ever issued twice.
 */
public final class Serial {

    private static final Duration RETRY_AFTER = Duration.ofSeconds(1);

    private final SerialDefinition definition;
    private final RangeStore store;
    private final TimeSource time;
    /** The counter's code for a {@code {code:BITS}} field; null without one. */
    private final java.util.function.LongFunction<String> code;
    private final ReentrantLock lock = new ReentrantLock();
    /** The period the range is of: its first and next first day, its bounds in Unix ms. */
    private LocalDate periodStart;
    private long periodFromMillis = Long.MAX_VALUE;
    private long periodToMillis = Long.MIN_VALUE;
    private String tag;
    private SerialTemplate.Rendered rendered;
    private long next;
    private long end;
    private long issued;
    private long dropped;
    private long ranges;

    Serial(SerialDefinition definition, RangeStore store, TimeSource time,
            java.util.function.LongFunction<String> code) {
        this.definition = definition;
        this.store = store;
        this.time = time;
        this.code = code;
    }

    public SerialDefinition definition() {
        return definition;
    }

    /**
     * The next value, as its template writes it.
     *
     * @throws IdUnavailableException when the store cannot give a range now; nothing was issued
     */
    public String next() {
        lock.lock();
        try {
            long counter = takeCounter();   // may move to a new period, with its template
            return rendered.write(counter);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Fills {@code out[from..to)} with the next values, in the order taken (the clock is read
     * for each, so a batch that crosses the end of a period ends in the next one).
     *
     * @throws IdUnavailableException as {@link #next()}; values taken before are never issued
     */
    public void next(String[] out, int from, int to) {
        java.util.Objects.checkFromToIndex(from, to, out.length);
        lock.lock();
        try {
            for (int i = from; i < to; i++) {
                long counter = takeCounter();
                out[i] = rendered.write(counter);
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * The next value with its counter and period.
     *
     * @throws IdUnavailableException as {@link #next()}
     */
    public SerialValue nextValue() {
        lock.lock();
        try {
            return take();
        } finally {
            lock.unlock();
        }
    }

    /** What this node has done with the serial so far. */
    public SerialStats stats() {
        lock.lock();
        try {
            return new SerialStats(definition.name(), tag, issued, dropped, ranges,
                    end - next);
        } finally {
            lock.unlock();
        }
    }

    private SerialValue take() {
        long value = takeCounter();
        return new SerialValue(value, periodStart, rendered.write(value));
    }

    /** The next counter of the clock's period, under the lock; {@link #rendered} writes it. */
    private long takeCounter() {
        long now = time.currentTimeMillis();
        if (now < periodFromMillis || now >= periodToMillis) {
            enter(now);
        }
        if (next == end) {
            refill();
        }
        issued++;
        return next++;
    }

    /** Moves to the period {@code now} is in, dropping what is left of the last one's range. */
    private void enter(long now) {
        dropped += end - next;
        next = end = 0;
        SerialPeriod period = definition.period();
        LocalDate day = Instant.ofEpochMilli(now).atZone(definition.zone()).toLocalDate();
        LocalDate start = period.start(day);
        LocalDate after = period.next(start);
        periodStart = start;
        if (period == SerialPeriod.NONE) {
            periodFromMillis = Long.MIN_VALUE;
            periodToMillis = Long.MAX_VALUE;
        } else {
            periodFromMillis = start.atStartOfDay(definition.zone()).toInstant().toEpochMilli();
            periodToMillis = after.atStartOfDay(definition.zone()).toInstant().toEpochMilli();
        }
        tag = definition.name() + "~" + period.label(start);
        rendered = definition.compiled().render(start, code);
    }

    private void refill() {
        Range r;
        try {
            try {
                r = store.allocate(tag, definition.step());
            } catch (UnknownTagException e) {
                create();
                r = store.allocate(tag, definition.step());
            }
        } catch (RegistryException e) {
            throw new IdUnavailableException(Reason.RUNWAY_EXHAUSTED, "serial '"
                    + definition.name() + "': no range of " + tag + " from the store: "
                    + e.getMessage(), RETRY_AFTER);
        }
        next = r.start();
        end = r.end();
        ranges++;
    }

    /** Creates the period's counter; another node that created it first is as good. */
    private void create() throws RegistryException {
        try {
            store.create(tag, definition.first(), definition.step());
        } catch (RegistryException e) {
            if (e.kind() != RegistryException.Kind.CONFLICT) {
                throw e;
            }
        }
    }
}

package io.idmint.formats;

import io.idmint.TimeSource;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The {@link Flake128} generator. The state is one {@code long}, {@code millis << 16 | sequence}
 * of the last flake, advanced by compare-and-set to {@code now << 16} in a new millisecond or
 * to {@code last + 1} within one (which also covers a clock that stepped back:
 * {@code max(last, now)}), so two threads never take one value and no lock is held. A used-up
 * sequence waits for the clock to pass the last millisecond rather than borrow from the next.
 */
final class FlakeGenerator implements FormatGenerator<Flake128> {

    private final long workerId;
    private final TimeSource time;
    /**
     * Time (47 bits, so the state stays a non-negative {@code long}) and sequence; 0 stands for
     * "millisecond 0, sequence 0 taken": any real clock is past it.
     */
    private final AtomicLong state = new AtomicLong();

    FlakeGenerator(long workerId, TimeSource time) {
        this.workerId = workerId;
        this.time = time;
    }

    @Override
    public Flake128 next() {
        while (true) {
            long last = state.get();
            long lastMillis = last >>> 16;
            long now = time.currentTimeMillis();
            if (now < 0 || now > Flake128.MAX_TIMESTAMP_MILLIS) {
                throw FormatClock.timeOutOfRange("128-bit flake", now, "0 to 2^47-1 ms");
            }
            long next;
            if (now > lastMillis) {
                next = now << 16;
            } else if ((last & Flake128.MAX_SEQUENCE) < Flake128.MAX_SEQUENCE) {
                next = last + 1;
            } else {
                FormatClock.awaitMillis(time, lastMillis + 1, "128-bit flake");
                continue;
            }
            if (state.compareAndSet(last, next)) {
                return new Flake128(next >>> 16, workerId, (int) next & Flake128.MAX_SEQUENCE);
            }
        }
    }
}

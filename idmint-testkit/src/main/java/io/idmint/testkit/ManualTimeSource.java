package io.idmint.testkit;

import io.idmint.TimeSource;
import java.time.Duration;

/**
 * A clock that moves only when told to. The wall clock can be stepped in either direction; the
 * monotonic reading moves only forwards, with {@link #advance(Duration)}. Waiting for a time
 * either advances the clock to it ({@linkplain #autoAdvance() auto-advance}, for single-threaded
 * tests) or blocks until another thread advances it; tests never sleep.
 */
public final class ManualTimeSource implements TimeSource {

    private long wallMillis;
    private long nanos;
    private boolean autoAdvance;

    public ManualTimeSource(long startMillis) {
        this.wallMillis = startMillis;
    }

    /** Makes waits advance the clock instead of blocking. */
    public synchronized ManualTimeSource autoAdvance() {
        this.autoAdvance = true;
        return this;
    }

    @Override
    public synchronized long currentTimeMillis() {
        return wallMillis;
    }

    @Override
    public synchronized long nanoTime() {
        return nanos;
    }

    /** Moves both the wall clock and the monotonic clock forwards. */
    public synchronized void advance(Duration d) {
        if (d.isNegative()) {
            throw new IllegalArgumentException("advance() goes forwards; use step() to go back");
        }
        wallMillis += d.toMillis();
        nanos += d.toNanos();
        notifyAll();
    }

    /** Steps the wall clock alone, forwards or backwards, as NTP or an operator might. */
    public synchronized void step(Duration d) {
        wallMillis += d.toMillis();
        notifyAll();
    }

    /** Sets the wall clock alone. */
    public synchronized void set(long unixMillis) {
        wallMillis = unixMillis;
        notifyAll();
    }

    @Override
    public synchronized void awaitMillis(long unixMillis) throws InterruptedException {
        while (wallMillis < unixMillis) {
            if (autoAdvance) {
                advance(Duration.ofMillis(unixMillis - wallMillis));
            } else {
                wait();
            }
        }
    }
}

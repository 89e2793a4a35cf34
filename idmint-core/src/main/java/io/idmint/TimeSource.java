package io.idmint;

/**
 * Where every part of idmint reads time and waits for it. Nothing in idmint reads the system
 * clock directly: production code uses {@link #system()}, tests a manual source that can jump.
 */
public interface TimeSource {

    /** Milliseconds since the Unix epoch, as this source sees them. */
    long currentTimeMillis();

    /** A monotonic nanosecond reading for measuring durations (deadlines, timeouts). */
    long nanoTime();

    /**
     * Blocks until {@link #currentTimeMillis()} is at least {@code unixMillis}. Short waits may
     * spin; the call returns at once when the time has already come.
     *
     * @throws InterruptedException when the waiting thread is interrupted
     */
    void awaitMillis(long unixMillis) throws InterruptedException;

    /**
     * How far the wall clock is from this source, in milliseconds: negative when the wall clock
     * stepped back and this source did not follow it, positive when it stepped forwards further
     * than the source follows unconfirmed. Zero for sources that are the wall clock.
     */
    default long wallClockOffsetMillis() {
        return 0;
    }

    /**
     * The production source: {@link System#nanoTime()} anchored to the wall clock at start, and
     * re-anchored forwards only when the wall clock runs ahead (NTP slewing). A wall clock that
     * steps backwards is reported by {@link #wallClockOffsetMillis()}, never followed; one that
     * steps forwards by more than a second is followed only once the fleet (or a minute's
     * persistence) confirms it: see {@link Snowflake#maxForwardStep(java.time.Duration)}.
     */
    static TimeSource system() {
        return new HybridTimeSource(Snowflake.DEFAULT_MAX_FORWARD_STEP.toMillis());
    }
}

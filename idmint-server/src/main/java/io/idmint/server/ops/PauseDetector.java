package io.idmint.server.ops;

import io.vertx.core.VertxException;
import io.vertx.core.internal.threadchecker.BlockedThreadChecker;
import io.vertx.core.internal.threadchecker.BlockedThreadEvent;
import java.util.function.LongConsumer;
import java.util.function.LongSupplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Notices when the whole process stood still (SIGSTOP, a frozen VM, a long stop-the-world pause)
 * and keeps it apart from a blocked thread (docs/observability.md, "Log events"). A daemon
 * thread beats every {@link #BEAT_MILLIS}; a beat that comes {@link #PAUSE_MILLIS} or more after
 * the one before is a pause, reported once. Vert.x's blocked-thread checker measures an event
 * loop's task from its start, pause included, so after a SIGCONT it warned "Thread blocked" for a
 * task that had run for microseconds. Its events come here instead: the time the process stood
 * still is taken off, and only what is left past the limit is logged, in Vert.x's words, under
 * its logger.
 */
public final class PauseDetector implements AutoCloseable {

    /** How often the detector's thread beats. */
    static final long BEAT_MILLIS = 20;
    /** A gap between beats this long is a pause of the process, not a late beat. */
    static final long PAUSE_MILLIS = 1_000;

    private static final Logger VERTX = Logger.getLogger(BlockedThreadChecker.LOGGER_NAME);
    private static final int KEPT = 16;

    private final LongSupplier nanos;
    private final LongConsumer onPause;
    /** The last pauses, as start and end nanos, in a ring; guarded by this. */
    private final long[] starts = new long[KEPT];
    private final long[] ends = new long[KEPT];
    private int next;
    private volatile long lastBeat;
    private final Thread thread;

    /**
     * @param nanos the monotonic clock
     * @param onPause told each pause's length in milliseconds, on the detector's thread
     * @param run whether to start the beating thread (a test beats by hand)
     */
    public PauseDetector(LongSupplier nanos, LongConsumer onPause, boolean run) {
        this.nanos = nanos;
        this.onPause = onPause;
        this.lastBeat = nanos.getAsLong();
        this.thread = run ? new Thread(this::loop, "idmint-pause-detector") : null;
        if (thread != null) {
            thread.setDaemon(true);
            thread.start();
        }
    }

    private void loop() {
        while (!Thread.currentThread().isInterrupted()) {
            try {
                Thread.sleep(BEAT_MILLIS);
            } catch (InterruptedException e) {
                return;
            }
            beat();
        }
    }

    /** One beat: records and reports a pause when the gap since the last beat is one. */
    void beat() {
        long now = nanos.getAsLong();
        long from = lastBeat;
        boolean paused = now - from >= PAUSE_MILLIS * 1_000_000;
        if (paused) {
            synchronized (this) {
                starts[next] = from;
                ends[next] = now;
                next = (next + 1) % KEPT;
            }
        }
        lastBeat = now;
        if (paused) {
            onPause.accept((now - from) / 1_000_000);
        }
    }

    /**
     * How much of {@code [from, to]} (nanos) the process stood still, as known at {@code to}: the
     * pauses recorded, and a gap still open because the beating thread has not run since.
     */
    synchronized long pausedNanos(long from, long to) {
        long sum = 0;
        for (int i = 0; i < KEPT; i++) {
            sum += overlap(starts[i], ends[i], from, to);
        }
        long open = lastBeat;
        if (to - open >= PAUSE_MILLIS * 1_000_000) {
            sum += overlap(open, to, from, to);
        }
        return sum;
    }

    private static long overlap(long a, long b, long from, long to) {
        return Math.max(0, Math.min(b, to) - Math.max(a, from));
    }

    /**
     * Vert.x's blocked-thread event: logged as Vert.x would, but only when the thread was blocked
     * past its limit while the process ran.
     */
    public void blocked(BlockedThreadEvent e) {
        long now = nanos.getAsLong();
        long paused = pausedNanos(now - e.duration(), now);
        long ran = e.duration() - paused;
        if (ran <= e.maxExecTime()) {
            return;
        }
        String msg = "Thread " + e.thread().getName() + " has been blocked for " + ran / 1_000_000
                + " ms, time limit is " + e.maxExecTime() / 1_000_000 + " ms"
                + (paused > 0 ? " (not counting " + paused / 1_000_000
                        + " ms the process stood still)" : "");
        if (ran <= e.warningExceptionTime()) {
            VERTX.warning(msg);
        } else {
            VertxException where = new VertxException("Thread blocked");
            where.setStackTrace(e.thread().getStackTrace());
            VERTX.log(Level.WARNING, msg, where);
        }
    }

    @Override
    public void close() {
        if (thread != null) {
            thread.interrupt();
        }
    }
}

package io.idmint;

import java.util.concurrent.Executor;

/**
 * The thread that takes an {@link HwmLease}'s protocol steps: one per period while the lease
 * issues, at least one a second while it does not, and one at once when the hot path asks for it
 * ({@link #wake}), except within the backoff after a failed step.
 *
 * <p>Not interrupted to stop: an interrupt closes a FileChannel mid-write. {@link #close()} sets
 * {@code closing} and notifies instead, then waits for the loop to end.
 */
final class MaintenanceLoop {

    private final HwmLease lease;
    private final TimeSource time;
    private final long periodMillis;
    private final long backoffNanos;
    /**
     * The maintenance thread waits on this, never on the lease: the lease is held for whole
     * registry calls, and the hot path must be able to wake the thread without waiting for one.
     */
    private final Object signal = new Object();
    private boolean wakeRequested;
    /** Whether the last step failed, and when it ended ({@link TimeSource#nanoTime()}). */
    private boolean failed;
    private long failedAtNanos;
    private boolean closing;
    /** The thread running the loop, while it runs. */
    private Thread loop;

    MaintenanceLoop(HwmLease lease, TimeSource time, long periodMillis) {
        this.lease = lease;
        this.time = time;
        this.periodMillis = periodMillis;
        this.backoffNanos = Math.min(periodMillis, HwmLease.RETRY_BACKOFF_MILLIS) * 1_000_000;
    }

    /** Runs the loop on {@code executor}; a loop that starts after close returns at once. */
    void start(Executor executor) {
        executor.execute(this::run);
    }

    private void run() {
        synchronized (signal) {
            if (closing) {
                return;
            }
            loop = Thread.currentThread();
        }
        try {
            for (;;) {
                lease.maintain();
                LeaseState state = lease.state();
                long waitMillis = state == LeaseState.ACTIVE || state == LeaseState.DEGRADED
                        ? periodMillis : Math.min(periodMillis, 1000);
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
     * Asks for a step now. Within the backoff after a failed step only a clock fault does: the
     * next renewal waits for the backoff's first wake, or the period.
     */
    void wake(boolean clockFault) {
        synchronized (signal) {
            if (failed && !clockFault && time.nanoTime() - failedAtNanos < backoffNanos) {
                return;
            }
            wakeRequested = true;
            signal.notifyAll();
        }
    }

    /** Ends the loop and waits until it has (unless called from the loop itself). */
    void close() {
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
    }
}

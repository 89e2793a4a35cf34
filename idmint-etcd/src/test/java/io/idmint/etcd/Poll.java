package io.idmint.etcd;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/** Waiting for a real store or process to get somewhere, with a deadline. */
final class Poll {

    private Poll() {
    }

    /** Polls every 20 ms; returns the time it took, or fails with {@code what} at the deadline. */
    static Duration until(Duration timeout, String what, BooleanSupplier condition)
            throws InterruptedException {
        long start = System.nanoTime();
        long deadline = start + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not within " + timeout + ": " + what);
            }
            Thread.sleep(20);
        }
        return Duration.ofNanos(System.nanoTime() - start);
    }
}

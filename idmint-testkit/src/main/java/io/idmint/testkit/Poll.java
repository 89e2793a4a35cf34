package io.idmint.testkit;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/**
 * Waiting for a real store or process to get somewhere: a condition polled every 20 ms until a
 * deadline, never a fixed sleep standing in for "long enough".
 */
public final class Poll {

    private Poll() {
    }

    /**
     * Polls {@code condition} until it holds and returns how long that took.
     *
     * @throws AssertionError naming {@code what} when it does not hold within {@code timeout}
     *     (times {@link TestTime#SCALE})
     */
    public static Duration until(Duration timeout, String what, BooleanSupplier condition)
            throws InterruptedException {
        long start = System.nanoTime();
        Duration scaled = TestTime.scaled(timeout);
        long deadline = start + scaled.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not within " + scaled + ": " + what);
            }
            Thread.sleep(20);
        }
        return Duration.ofNanos(System.nanoTime() - start);
    }
}

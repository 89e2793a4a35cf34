package io.idmint.testkit;

import java.time.Duration;

/**
 * The one scale factor for the time tests give things to happen: a slow machine raises it
 * instead of each test's deadline. {@code IDMINT_TEST_TIME_SCALE} in the environment (a number
 * of at least 1; {@code scripts/test} passes it on, and child processes inherit it) multiplies
 * every deadline a test takes through {@link #scaled}, and JUnit's per-test timeout. It never
 * shortens a deadline and never changes what a test asserts about the system under test (a
 * lease TTL, a configured timeout): only how long the test waits to see it.
 */
public final class TestTime {

    /** The factor, from {@code IDMINT_TEST_TIME_SCALE}; 1 when unset. */
    public static final double SCALE = parse(System.getenv("IDMINT_TEST_TIME_SCALE"));

    private TestTime() {
    }

    /** {@code deadline} times {@link #SCALE}. */
    public static Duration scaled(Duration deadline) {
        return SCALE == 1 ? deadline : Duration.ofNanos((long) (deadline.toNanos() * SCALE));
    }

    /**
     * The {@link System#nanoTime()} by which a wait of {@code timeout} (times {@link #SCALE})
     * gives up: {@code while (System.nanoTime() < deadline)}.
     */
    public static long deadline(Duration timeout) {
        return System.nanoTime() + scaled(timeout).toNanos();
    }

    static double parse(String value) {
        if (value == null || value.isBlank()) {
            return 1;
        }
        double scale;
        try {
            scale = Double.parseDouble(value.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("IDMINT_TEST_TIME_SCALE: '" + value
                    + "' is not a number; give a factor of at least 1, such as 2", e);
        }
        if (!(scale >= 1 && scale <= 100)) {
            throw new IllegalArgumentException("IDMINT_TEST_TIME_SCALE: " + value
                    + " is out of range; give a factor from 1 to 100");
        }
        return scale;
    }
}

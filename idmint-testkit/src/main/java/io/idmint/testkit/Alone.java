package io.idmint.testkit;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;

/**
 * Marks a test class that measures time or memory (a latency percentile, a GC pause, resident
 * memory), so it must not share the machine with the module's other tests: the build runs the
 * classes so marked after the others, one at a time, in their own failsafe execution (tag
 * {@value #TAG}; docs/testing.md, "Time"). Everything else runs several classes at once.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
@Tag(Alone.TAG)
public @interface Alone {

    /** The JUnit tag the build's failsafe executions select on. */
    String TAG = "alone";
}

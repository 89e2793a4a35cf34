package io.idmint;

/**
 * Hooks for metrics and logs. Every method has a no-op default and must return quickly: the
 * sequence and clock hooks run on the caller's thread.
 */
public interface GeneratorListener {

    /** The no-op listener. */
    GeneratorListener NONE = new GeneratorListener() { };

    /** The lease moved from one state to another; {@code detail} says why. */
    default void onStateChange(LeaseState from, LeaseState to, String detail) {
    }

    /** A caller waited for the next tick because the sequence of the current one ran out. */
    default void onSequenceWait() {
    }

    /** The clock was found behind the last issued time by {@code behindMillis}. */
    default void onClockBehind(long behindMillis) {
    }
}

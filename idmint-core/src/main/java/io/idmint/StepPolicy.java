package io.idmint;

/**
 * Leaf's step rule: a range that lasted less than the target doubles the next step, one that
 * lasted more than twice the target halves it, within {@code [min, max]}.
 */
record StepPolicy(long initial, long min, long max, long targetNanos) {

    /** The step of the next allocation, given the last step and how long its range lasted. */
    long next(long step, long lastedNanos) {
        if (lastedNanos < targetNanos) {
            return Math.min(max, step * 2);
        }
        if (lastedNanos > 2 * targetNanos) {
            return Math.max(min, step / 2);
        }
        return step;
    }
}

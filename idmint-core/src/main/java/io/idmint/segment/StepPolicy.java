package io.idmint.segment;

/**
 * Leaf's step rule: a range that lasted less than the target doubles the next step, one that
 * lasted more than twice the target halves it. Steps stay within {@code [min, max]}, widened to
 * take in the tag's own step, so a tag created with a step outside the bounds keeps it.
 *
 * @param initial the step of tags the generator creates itself (auto-creation)
 */
record StepPolicy(long initial, long min, long max, long targetNanos) {

    /** The step of the next allocation, given the last step and how long its range lasted. */
    long next(long step, long lastedNanos, long tagStep) {
        if (lastedNanos < targetNanos) {
            return Math.min(Math.max(max, tagStep), step * 2);
        }
        if (lastedNanos > 2 * targetNanos) {
            return Math.max(Math.min(min, tagStep), step / 2);
        }
        return step;
    }
}

package io.idmint.segment;

import io.idmint.IdUnavailableException;

/**
 * Serves dense, increasing IDs per named tag from ranges leased out of a
 * {@link io.idmint.spi.RangeStore} (Leaf's segment mode). Thread-safe. On one thread, the IDs of
 * one tag are strictly increasing; across threads they are unique, and in issue order unless
 * the generator was built with {@link SegmentOrder#RELAXED}. IDs skipped by a restart or a lost
 * allocation are never issued again (IDs are unique, not gapless). Tags are independent.
 */
public interface SegmentGenerator extends AutoCloseable {

    /**
     * The next ID of {@code tag}.
     *
     * @throws IllegalArgumentException when the tag name is not valid
     *     ({@link io.idmint.spi.support.Names#isValidTag})
     * @throws io.idmint.spi.UnknownTagException when the tag does not exist and auto-creation is
     *     off
     * @throws IdUnavailableException when both buffers of the tag are empty past the fetch
     *     timeout ({@link IdUnavailableException.Reason#RUNWAY_EXHAUSTED}), or the generator is
     *     closed; nothing was issued
     */
    long next(String tag);

    /**
     * Fills {@code ids[from..to)} with new IDs of {@code tag}, in increasing order, taking them a
     * range at a time.
     *
     * @throws IdUnavailableException as {@link #next(String)}; the array then holds no result
     *     (IDs taken before the failure are never used)
     */
    void next(String tag, long[] ids, int from, int to);

    /**
     * A handle on {@code tag}'s IDs that skips the look-up by name: the fastest way to draw from
     * a tag often. Keep it and share it across threads; every handle of a tag and
     * {@link #next(String)} serve from the same buffers.
     *
     * @throws IllegalArgumentException when the tag name is not valid
     *     ({@link io.idmint.spi.support.Names#isValidTag})
     * @throws IdUnavailableException when the generator is closed ({@code CLOSED}); whether the
     *     tag exists is asked on the handle's first call, which throws
     *     {@link io.idmint.spi.UnknownTagException} as {@link #next(String)} does
     */
    SegmentSequence sequence(String tag);

    /** Every tag used so far with its counters, sorted by tag. */
    java.util.List<SegmentStats> stats();

    /**
     * Stops the background fetches, waiting (at most the fetch timeout) for one under way, never
     * interrupting it; later calls throw {@link IdUnavailableException}. Close the store after.
     */
    @Override
    void close();
}

package io.idmint;

/**
 * Serves dense, increasing IDs per named tag from ranges leased out of a
 * {@link io.idmint.spi.RangeStore} (Leaf's segment mode). Thread-safe. On one thread, the IDs of
 * one tag are strictly increasing; across threads they are unique. IDs skipped by a restart or a
 * lost allocation are never issued again (IDs are unique, not gapless). Tags are independent.
 */
public interface SegmentGenerator extends AutoCloseable {

    /**
     * The next ID of {@code tag}.
     *
     * @throws IllegalArgumentException when the tag name is not 1 to 64 of
     *     {@code A-Z a-z 0-9 . _ -}
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

    /** Every tag used so far with its counters, sorted by tag. */
    java.util.List<SegmentStats> stats();

    /** Stops the background fetches; later calls throw {@link IdUnavailableException}. */
    @Override
    void close();
}

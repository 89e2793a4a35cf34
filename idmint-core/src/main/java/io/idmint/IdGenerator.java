package io.idmint;

/**
 * Mints unique, positive, k-sorted 64-bit IDs. Thread-safe. IDs from one generator are strictly
 * increasing in the order the calls return on one thread (with a shard field: per shard).
 * Close it to release its worker ID with the final high-water mark.
 */
public interface IdGenerator extends AutoCloseable {

    /**
     * The next ID.
     *
     * @throws IdUnavailableException when no ID can be issued safely now; nothing was issued
     */
    long nextId();

    /**
     * The next ID with its shard field set from {@code shardKey} (its non-negative remainder by
     * the number of shards), for layouts with a shard field such as {@code instagram}.
     *
     * @throws IllegalStateException when the layout has no shard field
     * @throws IdUnavailableException when no ID can be issued safely now
     */
    long nextId(long shardKey);

    /**
     * Fills {@code ids[from..to)} with new IDs, in increasing order, taking as many as a tick
     * allows in one step.
     *
     * @throws IdUnavailableException when no ID can be issued safely now; the array then holds
     *     no result (IDs taken before the failure are simply never used: IDs are not gapless)
     */
    void nextIds(long[] ids, int from, int to);

    /** The layout IDs are minted in. */
    Layout layout();

    /** A snapshot of the lease, runway and clock. */
    GeneratorStatus status();

    /** Stops issuing, and releases the worker ID with the last issued time as its final HWM. */
    @Override
    void close();
}

package io.idmint;

/**
 * Mints unique, positive, k-sorted 64-bit IDs. Thread-safe. IDs from one generator are strictly
 * increasing in the order the calls return on one thread (with a shard field: per shard). A
 * generator on one worker also orders across threads: a call that starts after another
 * returned gets greater IDs. One striped over several workers ({@link Snowflake#workers(int)})
 * orders per thread only. Close it to release its worker ID(s) with the final high-water mark.
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

    /**
     * As {@link #nextIds(long[], int, int)}, with every ID above {@code above}: an ID this
     * generator returned before, or 0. For a caller whose calls run one at a time but on
     * different threads (a stream served by a thread pool): passing the last ID it got keeps
     * its IDs increasing on a striped generator too. The default ignores {@code above}, which
     * is right for a generator whose IDs increase across threads, such as one on one worker.
     *
     * @throws IdUnavailableException when no ID can be issued safely now
     */
    default void nextIds(long[] ids, int from, int to, long above) {
        nextIds(ids, from, to);
    }

    /**
     * As {@link #nextIds(long[], int, int)}, without waiting for the clock: fills
     * {@code ids[from..k)} with what can be taken now and returns {@code k}, which is less than
     * {@code to} when this tick's sequence is used up (or the clock is a little behind the last
     * ID and the generator would wait for it). For a caller that must not block, such as an
     * event loop: it asks again for {@code ids[k..to)} a tick later, and gets IDs above those it
     * has. The default waits, as {@code nextIds} does, and returns {@code to}; idmint's
     * generators never wait here.
     *
     * @throws IdUnavailableException when no ID can be issued safely, as {@code nextIds}
     */
    default int nextIdsNow(long[] ids, int from, int to) {
        nextIds(ids, from, to);
        return to;
    }

    /** The layout IDs are minted in. */
    Layout layout();

    /** A snapshot of the lease, runway and clock. */
    GeneratorStatus status();

    /** Stops issuing, and releases the worker ID with the last issued time as its final HWM. */
    @Override
    void close();
}

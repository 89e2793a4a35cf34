package io.idmint.server.api;

/**
 * Snowflake IDs an operation minted, for its transport to render: the first {@link #count()}
 * of {@link #ids()}, in the order minted. A batch made on an event loop at once is that loop's
 * reused one ({@link LoopMint}): render it before the loop's next request.
 */
public interface IdBatch {

    /** The IDs, from index 0; the array may be longer than {@link #count()}. */
    long[] ids();

    /** How many of {@link #ids()} are this batch's. */
    int count();

    /** A batch of a whole array. */
    static IdBatch of(long[] ids) {
        return new Whole(ids);
    }

    /** Every ID of an array. */
    record Whole(long[] ids) implements IdBatch {
        @Override
        public int count() {
            return ids.length;
        }
    }
}

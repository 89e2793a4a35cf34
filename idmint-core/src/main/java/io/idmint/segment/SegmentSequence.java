package io.idmint.segment;

import io.idmint.IdUnavailableException;

/**
 * One tag's IDs, from {@link SegmentGenerator#sequence(String)}: the calls of
 * {@link SegmentGenerator#next(String)} without the look-up of the tag by name. Thread-safe; a
 * handle shares the tag's buffers with every other handle of the tag and with {@code next(tag)},
 * so mixing them keeps every guarantee of the generator's {@link SegmentOrder}.
 *
 * <pre>{@code
 * SegmentSequence orders = ids.sequence("order");   // once, e.g. in a constructor
 * long order = orders.next();                       // on the hot path
 * }</pre>
 */
public interface SegmentSequence {

    /** The tag this handle draws from. */
    String tag();

    /**
     * The next ID of the tag.
     *
     * @throws io.idmint.spi.UnknownTagException when the tag does not exist and auto-creation is
     *     off (asked again at every call, so a tag created later starts to work)
     * @throws IdUnavailableException as {@link SegmentGenerator#next(String)}
     */
    long next();

    /**
     * Fills {@code ids[from..to)} with new IDs of the tag, in increasing order.
     *
     * @throws IdUnavailableException as {@link SegmentGenerator#next(String, long[], int, int)}
     */
    void next(long[] ids, int from, int to);
}

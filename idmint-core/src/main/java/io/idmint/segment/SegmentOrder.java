package io.idmint.segment;

/**
 * How a segment generator orders a tag's IDs across threads (key {@code segment.order}:
 * {@code issue} or {@code relaxed}). Both keep IDs unique and strictly increasing on each thread.
 */
public enum SegmentOrder {
    /**
     * IDs in the order the calls take them: every call takes the next ID of the range being
     * served with one atomic increment, so a call that starts after another returned gets a
     * larger ID, whatever the threads, and every leased range is served in full. The default.
     */
    ISSUE,
    /**
     * Each thread takes a block of the range being served with one atomic add and serves it
     * alone, so threads do not contend on every call. IDs are unique and strictly increasing per
     * thread, but not in issue order across threads. A block is 1 to 1,024 IDs and at most a
     * sixteenth of its range: it doubles each time its thread uses it up and halves when it is
     * dropped. IDs left in a block when its range is replaced, its thread stops or the generator
     * closes are never issued, so each range is dense but for at most one block tail per thread;
     * every ID served comes from the range being served.
     */
    RELAXED
}

package io.idmint.spi;

/**
 * A block of values {@code [start, end)} leased from a {@link RangeStore}: no other allocation of
 * the same tag, by any client, overlaps it.
 */
public record Range(long start, long end) {

    public Range {
        if (start >= end) {
            throw new IllegalArgumentException("range [" + start + ", " + end + ") is empty");
        }
    }

    /** How many values the range holds. */
    public long size() {
        return end - start;
    }
}

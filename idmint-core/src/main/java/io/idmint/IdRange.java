package io.idmint;

/**
 * The IDs of a time window: every ID from {@link #from()} (inclusive) to {@link #to()}
 * (exclusive), so a query {@code WHERE id >= from AND id < to} finds them on the ID's own index.
 * Made by {@link Layout#range}.
 *
 * @param from the lowest ID of the window's first tick
 * @param to the lowest ID of the first tick after the window
 */
public record IdRange(long from, long to) {

    /** Whether {@code id} is in the range. */
    public boolean contains(long id) {
        return id >= from && id < to;
    }
}

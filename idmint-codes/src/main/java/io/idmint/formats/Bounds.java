package io.idmint.formats;

import java.time.Instant;
import java.util.Objects;

/**
 * The bounds of the IDs of a time window, for {@code WHERE id >= from AND id < to}: every ID
 * made at a moment of the window is at or above {@code from} and below {@code to}, in the
 * database's order of the type (bytes, as PostgreSQL's {@code uuid} and MongoDB's ObjectId
 * compare; not {@link java.util.UUID#compareTo}, which compares signed halves).
 *
 * @param from the lowest ID the window's first moment can carry (inclusive)
 * @param to the lowest ID of the first moment after the window (exclusive)
 * @param <T> the ID's type
 */
public record Bounds<T>(T from, T to) {

    public Bounds {
        Objects.requireNonNull(from, "from");
        Objects.requireNonNull(to, "to");
    }

    /** @throws IllegalArgumentException when the window {@code [from, to)} is empty */
    static void requireWindow(Instant from, Instant to) {
        if (!from.isBefore(to)) {
            throw new IllegalArgumentException("the window's start " + from + " is not before "
                    + "its end " + to);
        }
    }
}

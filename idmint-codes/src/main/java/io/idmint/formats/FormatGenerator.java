package io.idmint.formats;

import io.idmint.IdUnavailableException;

/**
 * Mints IDs of one format. Thread-safe. The IDs from one generator are unique and strictly
 * increasing, in the format's order, in the order the calls return on one thread (ObjectId
 * documents its one exception, the counter wrapping).
 *
 * @param <T> the ID type
 */
public interface FormatGenerator<T> {

    /**
     * The next ID. May wait for the clock when the format's per-tick capacity is used up.
     *
     * @throws IdUnavailableException with {@link IdUnavailableException.Reason#INTERRUPTED} when
     *     interrupted while waiting (the interrupt flag is set), or
     *     {@link IdUnavailableException.Reason#TIME_EXHAUSTED} when the clock is outside the
     *     format's time range
     */
    T next();
}

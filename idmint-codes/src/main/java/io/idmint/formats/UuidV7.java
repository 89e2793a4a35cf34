package io.idmint.formats;

import static io.idmint.spi.support.Checks.requireUnset;

import io.idmint.TimeSource;
import java.security.SecureRandom;
import java.time.Instant;
import java.util.Objects;
import java.util.UUID;
import java.util.random.RandomGenerator;

/**
 * UUID version 7 (RFC 9562 §5.7): time-ordered, monotonic within a generator, as
 * {@link java.util.UUID}. Choose it when a system expects a UUID column or string; it is twice
 * the size of idmint's 64-bit IDs and needs no worker ID.
 *
 * <pre>
 *  most significant long                      least significant long
 *  +----------------------+-----+-----------+ +----+------------------+------------------+
 *  | unix_ts_ms (48)      | 0111| ctr hi(12)| | 10 | ctr lo (30)      | random (32)      |
 *  +----------------------+-----+-----------+ +----+------------------+------------------+
 *                          ver 7  rand_a       var   rand_b
 * </pre>
 *
 * <p><b>Monotonicity</b> is RFC 9562 §6.2 method 1: a 42-bit counter in {@code rand_a} and the
 * top of {@code rand_b}. In a new millisecond it starts at 41 random bits (its top bit zero, the
 * RFC's rollover guard); within one it counts up, so a generator's UUIDs are strictly
 * increasing even in one millisecond and across threads. At least 2<sup>41</sup> UUIDs fit in a
 * millisecond; past that the timestamp moves on by one, as §6.2 allows. When the clock steps
 * back the generator keeps its last millisecond and counts on. The last 32 bits are fresh
 * randomness per UUID. Time: 48-bit milliseconds, until the year 10889.
 *
 * <pre>{@code
 * FormatGenerator<UUID> uuids = UuidV7.newGenerator().build();
 * UUID id = uuids.next();
 * long millis = UuidV7.timestampMillis(id);
 * }</pre>
 */
public final class UuidV7 {

    /** The last millisecond the 48-bit field holds. */
    private static final long MAX_MILLIS = (1L << 48) - 1;

    private UuidV7() {
    }

    public static Builder newGenerator() {
        return new Builder();
    }

    /**
     * The creation time of a version 7 UUID, in milliseconds since the Unix epoch.
     *
     * @throws IllegalArgumentException when it is not an RFC 9562 version 7 UUID
     */
    public static long timestampMillis(UUID uuid) {
        Objects.requireNonNull(uuid, "uuid");
        if (uuid.version() != 7 || uuid.variant() != 2) {
            throw new IllegalArgumentException("UUID " + uuid + " is not a UUIDv7: version "
                    + uuid.version() + ", variant " + uuid.variant() + " (expected version 7, "
                    + "variant 2, RFC 9562)");
        }
        return uuid.getMostSignificantBits() >>> 16;
    }

    /**
     * The UUIDv7s of the time window {@code [from, to)}: every version 7 UUID whose millisecond
     * is in the window sorts (bytewise, as PostgreSQL's {@code uuid}) at or above {@code from}
     * and below {@code to}, whoever minted it. The bounds are the lowest UUIDv7 of the window's
     * first millisecond and of the first millisecond after it.
     *
     * @throws IllegalArgumentException when {@code from} is not before {@code to}, or either is
     *     outside the 48-bit millisecond field (1970 to 10889)
     */
    public static Bounds<UUID> range(Instant from, Instant to) {
        Bounds.requireWindow(from, to);
        long first = from.toEpochMilli();
        long after = to.minusNanos(1).toEpochMilli() + 1;
        if (first < 0 || after > MAX_MILLIS) {
            throw new IllegalArgumentException("[" + from + ", " + to + ") is outside the "
                    + "UUIDv7 millisecond field (1970-01-01 to " + Instant.ofEpochMilli(MAX_MILLIS)
                    + ")");
        }
        return new Bounds<>(lowest(first), lowest(after));
    }

    /** The lowest version 7 UUID of a millisecond: rand_a and rand_b zero. */
    private static UUID lowest(long millis) {
        return new UUID(millis << 16 | 0x7000L, Long.MIN_VALUE);
    }

    /**
     * Reads a version 7 UUID in its canonical form, 8-4-4-4-12 hex digits in either case. Unlike
     * {@link UUID#fromString(String)} it takes nothing shorter or longer.
     *
     * @throws IllegalArgumentException naming the input and the problem
     */
    public static UUID parse(String text) {
        if (text == null || text.length() != 36) {
            throw new IllegalArgumentException("'" + Hex.echo(text) + "' is not a UUID: expected "
                    + "36 characters, 8-4-4-4-12 hex digits");
        }
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            boolean dash = i == 8 || i == 13 || i == 18 || i == 23;
            if (dash && c != '-') {
                throw new IllegalArgumentException("'" + text + "' is not a UUID: expected '-' "
                        + "at position " + (i + 1));
            }
            if (!dash && !Hex.isDigit(c)) {
                throw new IllegalArgumentException("'" + text + "' is not a UUID: '" + c
                        + "' at position " + (i + 1) + " is not a hex digit");
            }
        }
        String hex = text.substring(0, 8) + text.substring(9, 13) + text.substring(14, 18)
                + text.substring(19, 23) + text.substring(24);
        UUID uuid = new UUID(Hex.read(hex, 0, 16), Hex.read(hex, 16, 16));
        timestampMillis(uuid);
        return uuid;
    }

    /**
     * Builds a UUIDv7 generator. Each setter may be called once; unset ones take their defaults
     * at {@link #build()}.
     */
    public static final class Builder {

        private TimeSource timeSource;
        private RandomGenerator random;

        private Builder() {
        }

        /** Where time comes from; default {@link TimeSource#system()}. */
        public Builder timeSource(TimeSource timeSource) {
            requireUnset(this.timeSource, "timeSource");
            this.timeSource = Objects.requireNonNull(timeSource, "timeSource");
            return this;
        }

        /**
         * Where the random bits come from; default a new {@link SecureRandom}, as RFC 9562 §6.9
         * asks. Called only under the generator's lock, so it need not be thread-safe, but it
         * must not be shared with other users.
         */
        public Builder random(RandomGenerator random) {
            requireUnset(this.random, "random");
            this.random = Objects.requireNonNull(random, "random");
            return this;
        }

        public FormatGenerator<UUID> build() {
            return new UuidV7Generator(timeSource != null ? timeSource : TimeSource.system(),
                    random != null ? random : new SecureRandom(), UuidV7Generator.COUNTER_BITS);
        }
    }
}

package io.idmint.formats;

import static io.idmint.spi.support.Checks.requireArgument;
import static io.idmint.spi.support.Checks.requireUnset;

import io.idmint.TimeSource;
import java.security.SecureRandom;
import java.time.Instant;
import java.util.Objects;
import java.util.random.RandomGenerator;

/**
 * A MongoDB ObjectId: 12 bytes, written as 24 lowercase hex digits. Choose it to store IDs in
 * MongoDB's {@code _id} or to interoperate with its drivers; it is ordered by the second only.
 *
 * <pre>
 *  byte  0         4                          9               12
 *        +---------+--------------------------+---------------+
 *        | seconds | random                   | counter       |
 *        | (32)    | (40), once per generator | (24)          |
 *        +---------+--------------------------+---------------+
 * </pre>
 *
 * <p>Seconds since the Unix epoch, unsigned (until 2106-02-07); a random value drawn when the
 * generator is built, which should be one per process; a counter that starts at a random value
 * and counts up modulo 2<sup>24</sup>. Capacity: 16,777,216 IDs per second per generator; a
 * generator that has issued that many in one second waits for the next, so none repeats.
 *
 * <p><b>Order.</b> A generator's ObjectIds are strictly increasing while its counter does not
 * wrap within one second. Like every ObjectId generator, the counter wraps from {@code ffffff}
 * to {@code 000000}, and an ObjectId made after a wrap in the same second sorts below the one
 * before it: still unique, but out of order. When the clock steps back the generator keeps its
 * last second.
 *
 * @param seconds seconds since the Unix epoch, 0 to 2<sup>32</sup>-1
 * @param random the 5-byte random value, 0 to 2<sup>40</sup>-1
 * @param counter the 3-byte counter, 0 to 2<sup>24</sup>-1
 */
public record ObjectId(long seconds, long random, int counter) implements Comparable<ObjectId> {

    public static final long MAX_SECONDS = 0xFFFF_FFFFL;
    public static final long MAX_RANDOM = (1L << 40) - 1;
    public static final int MAX_COUNTER = (1 << 24) - 1;

    /** @throws IllegalArgumentException when a field is outside its width */
    public ObjectId {
        requireArgument(seconds >= 0 && seconds <= MAX_SECONDS, "ObjectId seconds must be 0 to "
                + MAX_SECONDS + ", got " + seconds);
        requireArgument(random >= 0 && random <= MAX_RANDOM, "ObjectId random must be 0 to "
                + MAX_RANDOM + ", got " + random);
        requireArgument(counter >= 0 && counter <= MAX_COUNTER, "ObjectId counter must be 0 to "
                + MAX_COUNTER + ", got " + counter);
    }

    public static Builder newGenerator() {
        return new Builder();
    }

    /**
     * Reads 24 hex digits, either case.
     *
     * @throws IllegalArgumentException naming the input and the problem
     */
    public static ObjectId parse(String hex) {
        Hex.require(hex, 24, "an ObjectId");
        return new ObjectId(Hex.read(hex, 0, 8), Hex.read(hex, 8, 10), (int) Hex.read(hex, 18, 6));
    }

    /** Reads the 12 bytes, big-endian as MongoDB stores them. */
    public static ObjectId fromBytes(byte[] bytes) {
        requireArgument(bytes.length == 12, "an ObjectId is 12 bytes, got " + bytes.length);
        return new ObjectId(bigEndian(bytes, 0, 4), bigEndian(bytes, 4, 5),
                (int) bigEndian(bytes, 9, 3));
    }

    /** The 12 bytes, big-endian. */
    public byte[] toBytes() {
        byte[] out = new byte[12];
        putBigEndian(out, 0, 4, seconds);
        putBigEndian(out, 4, 5, random);
        putBigEndian(out, 9, 3, counter);
        return out;
    }

    /** 24 lowercase hex digits, MongoDB's text form. */
    public String toHexString() {
        char[] out = new char[24];
        Hex.write(out, 0, seconds, 8);
        Hex.write(out, 8, random, 10);
        Hex.write(out, 18, counter, 6);
        return new String(out);
    }

    /**
     * The ObjectIds of the time window {@code [from, to)}: every ObjectId whose second is in the
     * window sorts at or above {@code from} and below {@code to}. The bounds are whole seconds,
     * the ObjectId's tick: ObjectIds of a second the window only partly covers match too.
     *
     * @throws IllegalArgumentException when {@code from} is not before {@code to}, or either is
     *     outside the 32-bit seconds field (1970 to 2106-02-07)
     */
    public static Bounds<ObjectId> range(Instant from, Instant to) {
        Bounds.requireWindow(from, to);
        long first = from.getEpochSecond();
        long after = to.minusNanos(1).getEpochSecond() + 1;
        if (first < 0 || after > MAX_SECONDS) {
            throw new IllegalArgumentException("[" + from + ", " + to + ") is outside the "
                    + "ObjectId seconds field (1970-01-01 to "
                    + Instant.ofEpochSecond(MAX_SECONDS) + ")");
        }
        return new Bounds<>(new ObjectId(first, 0, 0), new ObjectId(after, 0, 0));
    }

    /** The creation second, in milliseconds since the Unix epoch. */
    public long timestampMillis() {
        return seconds * 1000;
    }

    /** Byte order, which is also the order of the hex form. */
    @Override
    public int compareTo(ObjectId o) {
        int c = Long.compare(seconds, o.seconds);
        if (c == 0) {
            c = Long.compare(random, o.random);
        }
        return c != 0 ? c : Integer.compare(counter, o.counter);
    }

    /** {@link #toHexString()}. */
    @Override
    public String toString() {
        return toHexString();
    }

    private static long bigEndian(byte[] b, int at, int length) {
        long v = 0;
        for (int i = at; i < at + length; i++) {
            v = (v << 8) | (b[i] & 0xFF);
        }
        return v;
    }

    private static void putBigEndian(byte[] b, int at, int length, long v) {
        for (int i = at + length - 1; i >= at; i--) {
            b[i] = (byte) v;
            v >>>= 8;
        }
    }

    /**
     * Builds an ObjectId generator. Each setter may be called once; unset ones take their
     * defaults at {@link #build()}.
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
         * Where the 5-byte random value and the counter's start come from (one
         * {@code nextLong()} at build: its top 40 bits and its low 24); default a new
         * {@link SecureRandom}.
         */
        public Builder random(RandomGenerator random) {
            requireUnset(this.random, "random");
            this.random = Objects.requireNonNull(random, "random");
            return this;
        }

        public FormatGenerator<ObjectId> build() {
            return new ObjectIdGenerator(timeSource != null ? timeSource : TimeSource.system(),
                    (random != null ? random : new SecureRandom()).nextLong(),
                    ObjectIdGenerator.PER_SECOND);
        }
    }
}

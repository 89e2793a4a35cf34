package io.idmint.formats;

import static io.idmint.spi.support.Checks.requireArgument;
import static io.idmint.spi.support.Checks.requireUnset;

import io.idmint.TimeSource;
import java.util.Objects;

/**
 * A Boundary-style 128-bit flake: time, worker and sequence in two {@code long}s, written as
 * 32 lowercase hex digits. Choose it when workers cannot be coordinated at all: with the worker
 * set to something already unique per machine (a MAC address, see {@link #workerIdOf(byte[])})
 * no registry is needed. That holds <em>only</em> while every generator's worker is unique:
 * two generators with one worker ID can mint the same flake.
 *
 * <pre>
 *  most significant long                 least significant long
 *  +-----------------------------------+ +---------------------------+---------------+
 *  | time: ms since the Unix epoch (64)| | worker (48)               | sequence (16) |
 *  +-----------------------------------+ +---------------------------+---------------+
 * </pre>
 *
 * <p>Capacity: 65,536 flakes per millisecond per worker (65.5 million a second); when a
 * millisecond's sequence is used up the generator waits for the next one. 2<sup>48</sup>
 * workers. The time field is 0 to 2<sup>47</sup>-1 ms, what the generator mints: it runs until
 * the year 6429, and a flake with a later time is refused (it was not made by a generator).
 * When the clock steps back the generator keeps its last millisecond ({@code max(last, now)})
 * and counts the sequence on, then waits for the clock.
 * Flakes sort by time, then worker, then sequence: a generator's are strictly increasing.
 *
 * @param timestampMillis milliseconds since the Unix epoch, 0 to {@link #MAX_TIMESTAMP_MILLIS}
 * @param workerId 0 to 2<sup>48</sup>-1
 * @param sequence 0 to 65535
 */
public record Flake128(long timestampMillis, long workerId, int sequence)
        implements Comparable<Flake128> {

    /** The last millisecond a generator mints (2<sup>47</sup>-1, in the year 6429). */
    public static final long MAX_TIMESTAMP_MILLIS = (1L << 47) - 1;
    public static final long MAX_WORKER_ID = (1L << 48) - 1;
    public static final int MAX_SEQUENCE = 0xFFFF;

    /** @throws IllegalArgumentException when a field is outside its width */
    public Flake128 {
        requireArgument(timestampMillis >= 0 && timestampMillis <= MAX_TIMESTAMP_MILLIS,
                "flake time must be 0 to " + MAX_TIMESTAMP_MILLIS + " ms (2^47-1, the year 6429), "
                        + "got " + timestampMillis);
        requireArgument(workerId >= 0 && workerId <= MAX_WORKER_ID, "flake worker ID must be 0 "
                + "to " + MAX_WORKER_ID + ", got " + workerId);
        requireArgument(sequence >= 0 && sequence <= MAX_SEQUENCE, "flake sequence must be 0 to "
                + MAX_SEQUENCE + ", got " + sequence);
    }

    public static Builder newGenerator() {
        return new Builder();
    }

    /** The flake whose two halves are these, as {@link #mostSignificantBits()} gives them. */
    public static Flake128 fromBits(long mostSignificantBits, long leastSignificantBits) {
        return new Flake128(mostSignificantBits, leastSignificantBits >>> 16,
                (int) leastSignificantBits & MAX_SEQUENCE);
    }

    /**
     * Reads 32 hex digits, either case.
     *
     * @throws IllegalArgumentException naming the input and the problem
     */
    public static Flake128 parse(String hex) {
        Hex.require(hex, 32, "a 128-bit flake");
        long msb = Hex.read(hex, 0, 16);
        if (Long.compareUnsigned(msb, MAX_TIMESTAMP_MILLIS) > 0) {
            throw new IllegalArgumentException("'" + hex + "' is not a 128-bit flake: its time, "
                    + Long.toUnsignedString(msb) + " ms, is past the format's last millisecond "
                    + MAX_TIMESTAMP_MILLIS + " (2^47-1, the year 6429), so no generator made it");
        }
        return fromBits(msb, Hex.read(hex, 16, 16));
    }

    /**
     * A worker ID from a 6-byte MAC address, big-endian, as
     * {@link java.net.NetworkInterface#getHardwareAddress()} gives it. Unique only while the MAC
     * is: beware of virtual machines and containers with
     * made-up or copied MACs.
     */
    public static long workerIdOf(byte[] mac) {
        requireArgument(mac != null && mac.length == 6, "a MAC address is 6 bytes, got "
                + (mac == null ? "null" : mac.length));
        long w = 0;
        for (byte b : mac) {
            w = (w << 8) | (b & 0xFF);
        }
        return w;
    }

    /** The time field. */
    public long mostSignificantBits() {
        return timestampMillis;
    }

    /** The worker and sequence fields. */
    public long leastSignificantBits() {
        return workerId << 16 | sequence;
    }

    /** 32 lowercase hex digits. */
    public String toHexString() {
        char[] out = new char[32];
        Hex.write(out, 0, mostSignificantBits(), 16);
        Hex.write(out, 16, leastSignificantBits(), 16);
        return new String(out);
    }

    /** Time, then worker, then sequence: the order of the hex form. */
    @Override
    public int compareTo(Flake128 o) {
        int c = Long.compare(timestampMillis, o.timestampMillis);
        return c != 0 ? c : Long.compareUnsigned(leastSignificantBits(), o.leastSignificantBits());
    }

    /** {@link #toHexString()}. */
    @Override
    public String toString() {
        return toHexString();
    }

    /**
     * Builds a flake generator. The worker ID is required; the time source may be set once and
     * defaults at {@link #build()}.
     */
    public static final class Builder {

        private Long workerId;
        private TimeSource timeSource;

        private Builder() {
        }

        /** This generator's worker, 0 to 2<sup>48</sup>-1, unique among all generators. */
        public Builder workerId(long workerId) {
            requireUnset(this.workerId, "workerId");
            requireArgument(workerId >= 0 && workerId <= MAX_WORKER_ID, "flake worker ID must "
                    + "be 0 to " + MAX_WORKER_ID + " (48 bits), got " + workerId);
            this.workerId = workerId;
            return this;
        }

        /** Where time comes from; default {@link TimeSource#system()}. */
        public Builder timeSource(TimeSource timeSource) {
            requireUnset(this.timeSource, "timeSource");
            this.timeSource = Objects.requireNonNull(timeSource, "timeSource");
            return this;
        }

        /** @throws IllegalArgumentException when no worker ID was given */
        public FormatGenerator<Flake128> build() {
            requireArgument(workerId != null, "no worker ID for 128-bit flakes: pass one to "
                    + "workerId(), unique per generator, e.g. workerIdOf(a MAC address)");
            return new FlakeGenerator(workerId,
                    timeSource != null ? timeSource : TimeSource.system());
        }
    }
}

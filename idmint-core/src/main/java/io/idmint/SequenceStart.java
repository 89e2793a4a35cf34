package io.idmint;

import static io.idmint.spi.support.Checks.requireArgument;

import java.util.Objects;
import java.util.random.RandomGenerator;

/**
 * Where the sequence of each new tick starts (key {@code sequence.start}). With {@link #zero()}
 * (the default) the first ID of every tick has sequence 0, so at low rates almost every ID ends
 * in the same low bits and a table sharded by {@code id % N} fills shard 0 first. With
 * {@link #random(int, RandomGenerator)} the first ID of each tick has a sequence drawn uniformly
 * from {@code [0, span)}; the rest of the tick follows it one by one as before.
 *
 * <p>Nothing else changes: a random start applies only to the first ID of a tick that is later
 * than the generator's last one, so IDs stay strictly increasing per generator, and a tick still
 * holds at least {@code idsPerTick - span + 1} IDs (the capacity drops by less than the span).
 * {@code id % N} is uniform at one ID per tick when N divides the span and the sequence is the
 * layout's lowest field (see docs/design.md, "Sequence start").
 *
 * <p>The draw is a keyed hash of the tick (SplitMix64's finaliser), keyed once from the given
 * random generator: the hot path shares no mutable state for it, and a seeded generator makes
 * tests reproducible.
 */
public final class SequenceStart {

    /** The default span of {@code sequence.random-span}: {@code id % 16} is uniform. */
    public static final int DEFAULT_RANDOM_SPAN = 16;
    /** The largest span accepted here; a layout may allow less ({@code idsPerTick}). */
    public static final int MAX_SPAN = 1 << 30;

    private static final SequenceStart ZERO = new SequenceStart(1, 0);

    private final int span;
    private final long key;

    private SequenceStart(int span, long key) {
        this.span = span;
        this.key = key;
    }

    /** Every tick starts at sequence 0 (the default). */
    public static SequenceStart zero() {
        return ZERO;
    }

    /**
     * Every tick starts at a sequence drawn from {@code [0, span)}.
     *
     * @param span 2 to {@link #MAX_SPAN}, and at most the layout's IDs per tick (checked when
     *     the generator is built)
     * @param random read once, here, for the key of the per-tick draw
     */
    public static SequenceStart random(int span, RandomGenerator random) {
        requireArgument(span >= 2 && span <= MAX_SPAN, "sequence.random-span must be from 2 to "
                + MAX_SPAN + ", got " + span);
        Objects.requireNonNull(random, "random");
        return new SequenceStart(span, random.nextLong());
    }

    /** 1 for {@link #zero()}, else the span of the random start. */
    public int span() {
        return span;
    }

    /** The first sequence number of {@code tick}, below {@link #span()}. */
    long offset(long tick) {
        if (span == 1) {
            return 0;
        }
        long z = key + tick * 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return Long.remainderUnsigned(z ^ (z >>> 31), span);
    }

    @Override
    public String toString() {
        return span == 1 ? "zero" : "random(span " + span + ")";
    }
}

package io.idmint;

import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;

/**
 * RFC 9562 version 7 UUIDs that are unique by construction: each one carries a 64-bit ID from a
 * leased, fenced {@link IdGenerator}, so it has that ID's guarantees (no duplicate across
 * threads, processes, restarts and clock steps while workers are leased) where a random UUIDv7
 * has only improbability. Build the generator as usual and mint through this:
 *
 * <pre>{@code
 * IdGenerator ids = Snowflake.newBuilder().registry(registry).build();
 * FencedUuidV7 uuids = FencedUuidV7.over(ids);
 * UUID id = uuids.next();                        // 019ad0a7-4f3e-7000-8...
 * IdParts parts = FencedUuidV7.decode(id, ids.layout());   // its time, datacenter, worker
 * }</pre>
 *
 * <p><b>Bits.</b> An ID is its layout's time field over the fields below it (datacenter,
 * worker, shard, sequence, in the layout's order: {@code N} bits, 22 in {@code snowflake}). The
 * UUID is
 *
 * <pre>
 *  unix_ts_ms (48)  | ver 0111 | rand_a (12) | var 10 | rand_b (62)
 *  the ID's time,              |&lt;- the ID's N low bits -&gt;|&lt;- 74 - N random bits -&gt;|
 *  as Unix ms
 * </pre>
 *
 * <p>{@code unix_ts_ms} is the start of the ID's tick in Unix milliseconds (the layout's epoch
 * plus tick × tick length); the ID's other fields follow the version nibble, skipping the
 * variant, then fresh random bits (not secret: they make UUIDs of one ID differ, nothing more).
 * This is RFC 9562 §6.2 method 1 with the node ID of §6.4 ahead of the counter: the worker's
 * sequence is a fixed-length counter, and the datacenter and worker bits are constant for a
 * generator. So the UUIDs sort (as numbers, as bytes, as PostgreSQL's {@code uuid}) exactly as
 * their IDs do: a generator's UUIDs increase whenever its IDs do, across threads, refills and
 * restarts, and {@code UuidV7.range} bounds select them by time as for any UUIDv7. Every UUID
 * is a valid version 7 UUID with the RFC's variant.
 *
 * <p><b>One UUID per ID.</b> {@link #of(long, Layout)} turns an ID into its UUID, for an ID
 * taken elsewhere (a client's buffer): an ID is issued once, so deriving one UUID from each ID
 * keeps them unique; deriving two from one ID gives two UUIDs that differ only in their random
 * bits. {@link #idOf(UUID, Layout)} gives the ID back. Fenced UUIDs of different layouts or
 * deployments are no more unique against each other than their IDs are.
 *
 * <p>A layout whose time field can run past the 48-bit millisecond field (the year 10889) is
 * refused when the generator or conversion is asked for. With
 * ticks longer than a millisecond ({@code sonyflake}: 10 ms) the UUID's time is its tick's
 * start. Thread-safe, as the generator under it.
 */
public final class FencedUuidV7 {

    /** The last millisecond the 48-bit field holds: 10889-08-02T05:31:50.655Z. */
    static final long MAX_MILLIS = (1L << 48) - 1;
    private static final int FREE_BITS = 74;
    private static final int RAND_A_BITS = 12;
    private static final int RAND_B_BITS = 62;
    private static final long VERSION_7 = 0x7000L;
    private static final long VARIANT_RFC = Long.MIN_VALUE;

    private final IdGenerator ids;
    private final Layout layout;
    private final int low;

    private FencedUuidV7(IdGenerator ids) {
        this.ids = ids;
        this.layout = ids.layout();
        this.low = lowBits(layout);
    }

    /**
     * Fenced UUIDs over {@code ids}, which stays the caller's to close.
     *
     * @throws IllegalArgumentException when the generator's layout has times a UUIDv7 cannot hold
     */
    public static FencedUuidV7 over(IdGenerator ids) {
        Objects.requireNonNull(ids, "ids");
        requireFits(ids.layout());
        return new FencedUuidV7(ids);
    }

    /**
     * The next UUID, from the generator's next ID.
     *
     * @throws IdUnavailableException when the generator issues no ID now; nothing was issued
     */
    public UUID next() {
        return encode(ids.nextId(), layout, low);
    }

    /**
     * Fills {@code out[from..to)} with new UUIDs in increasing order, from one batch of IDs.
     *
     * @throws IdUnavailableException when the generator issues no IDs now
     */
    public void next(UUID[] out, int from, int to) {
        Objects.checkFromToIndex(from, to, out.length);
        long[] batch = new long[to - from];
        ids.nextIds(batch, 0, batch.length);
        for (int i = 0; i < batch.length; i++) {
            out[from + i] = encode(batch[i], layout, low);
        }
    }

    /** The generator the UUIDs' IDs come from. */
    public IdGenerator ids() {
        return ids;
    }

    /**
     * The fenced UUID of an ID of {@code layout}, with fresh random bits.
     *
     * @throws IllegalArgumentException when the ID is not one of the layout (negative, or bits
     *     beyond it), or the layout has times a UUIDv7 cannot hold
     */
    public static UUID of(long id, Layout layout) {
        int low = lowBits(layout);
        if (!layout.unsigned() && (id < 0 || id >>> layout.totalBits() != 0)) {
            throw new IllegalArgumentException("ID " + id + " is not an ID of layout "
                    + layout + " (0 to 2^" + layout.totalBits() + "-1)");
        }
        return encode(id, layout, low);
    }

    /** {@link #of(long, Layout)} without its checks: {@code low} is the layout's low bits. */
    private static UUID encode(long id, Layout layout, int low) {
        long millis = layout.millisOf(id >>> low);
        long payload = id & ((1L << low) - 1);
        ThreadLocalRandom random = ThreadLocalRandom.current();
        long randA;
        long randB;
        if (low <= RAND_A_BITS) {
            // The payload fits rand_a; random bits fill the rest of it and all of rand_b.
            int fill = RAND_A_BITS - low;
            randA = payload << fill | (fill == 0 ? 0 : random.nextLong() >>> (64 - fill));
            randB = random.nextLong() >>> 2;
        } else {
            int inB = low - RAND_A_BITS;
            int fill = RAND_B_BITS - inB;
            randA = payload >>> inB;
            randB = (payload & ((1L << inB) - 1)) << fill
                    | (fill == 0 ? 0 : random.nextLong() >>> (64 - fill));
        }
        return new UUID(millis << 16 | VERSION_7 | randA, VARIANT_RFC | randB);
    }

    /**
     * The ID a fenced UUID of {@code layout} carries. Any version 7 UUID whose time falls on one
     * of the layout's ticks reads as some ID: this cannot tell a fenced UUID from a random one.
     *
     * @throws IllegalArgumentException when the UUID is not version 7 with the RFC's variant, or
     *     its time is no tick of the layout (before its epoch, between two ticks, past its end)
     */
    public static long idOf(UUID uuid, Layout layout) {
        Objects.requireNonNull(uuid, "uuid");
        int low = lowBits(layout);
        if (uuid.version() != 7 || uuid.variant() != 2) {
            throw new IllegalArgumentException("UUID " + uuid + " is not a UUIDv7: version "
                    + uuid.version() + ", variant " + uuid.variant() + " (expected version 7, "
                    + "variant 2, RFC 9562)");
        }
        long msb = uuid.getMostSignificantBits();
        long millis = msb >>> 16;
        long sinceEpoch = millis - layout.epochMillis();
        if (sinceEpoch < 0 || sinceEpoch % layout.tickMillis() != 0
                || sinceEpoch / layout.tickMillis() > layout.maxTick()) {
            throw new IllegalArgumentException("UUID " + uuid + " is no fenced UUID of layout "
                    + layout + ": its time " + java.time.Instant.ofEpochMilli(millis)
                    + " is not a tick of the layout (epoch "
                    + java.time.Instant.ofEpochMilli(layout.epochMillis()) + ", ticks of "
                    + layout.tickMillis() + " ms, until " + layout.exhaustion() + ")");
        }
        long randA = msb & 0xFFF;
        long randB = uuid.getLeastSignificantBits() & ((1L << RAND_B_BITS) - 1);
        long payload;
        if (low <= RAND_A_BITS) {
            payload = randA >>> (RAND_A_BITS - low);
        } else {
            int inB = low - RAND_A_BITS;
            payload = randA << inB | randB >>> (RAND_B_BITS - inB);
        }
        long tick = sinceEpoch / layout.tickMillis();
        return tick << low | payload;
    }

    /**
     * The parts of a fenced UUID: its ID's time, datacenter, worker, shard and sequence.
     *
     * @throws IllegalArgumentException as {@link #idOf(UUID, Layout)}
     */
    public static IdParts decode(UUID uuid, Layout layout) {
        return layout.decode(idOf(uuid, layout));
    }

    /**
     * Refuses a layout whose IDs cannot all be fenced UUIDs: a time field that runs past the
     * UUID's 48-bit millisecond field (layouts' epochs are never before 1970).
     *
     * @throws IllegalArgumentException naming the layout and the limit
     */
    public static void requireFits(Layout layout) {
        Objects.requireNonNull(layout, "layout");
        long end = layout.exhaustionMillis();
        if (end == Long.MIN_VALUE || end - 1 > MAX_MILLIS) {
            throw new IllegalArgumentException("layout " + layout + " has times a UUIDv7 "
                    + "cannot hold (epoch " + java.time.Instant.ofEpochMilli(layout.epochMillis())
                    + ", time field until " + (end == Long.MIN_VALUE ? "beyond any date"
                            : layout.exhaustion()) + "; a UUIDv7 holds 1970-01-01 to "
                    + java.time.Instant.ofEpochMilli(MAX_MILLIS) + ")");
        }
    }

    /** The bits below the time field, after checking the layout fits. */
    private static int lowBits(Layout layout) {
        requireFits(layout);
        return layout.totalBits() - layout.bits(Layout.Field.TIME);
    }
}

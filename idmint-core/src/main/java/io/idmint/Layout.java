package io.idmint;

import java.time.Instant;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * The bit layout of an ID: which fields it has, how wide each is, in which order, the length of
 * one time tick and the epoch. A layout is a value: two layouts with the same {@link #spec()} are
 * equal. It is a forever-contract of a deployment, so registries store it and refuse a node whose
 * layout differs.
 *
 * <pre>
 *  snowflake (default): 0 | time 41 (ms since epoch) | datacenter 5 | worker 5 | sequence 12
 *  bit                 63   62 ................... 22   21 ...... 17   16 ... 12  11 ...... 0
 * </pre>
 *
 * <p>The time field is always the most significant, so IDs sort by time. The fields add up to at
 * most 64 bits. Up to 63 bits, the bits above them are zero and every ID is a positive
 * {@code long}; a layout of all 64 bits (such as {@link #DISCORD}) is {@link #unsigned()}: its
 * IDs are read as unsigned 64-bit numbers, and idmint decodes them but never mints them, since
 * half of them are negative as a signed {@code long} or {@code BIGINT} and would sort below the
 * rest (docs/migration.md).
 */
public final class Layout {

    /** The fields an ID may have. */
    public enum Field {
        TIME("time"), DATACENTER("datacenter"), WORKER("worker"), SHARD("shard"),
        SEQUENCE("sequence");

        private final String key;

        Field(String key) {
            this.key = key;
        }

        /** The name of this field in a layout spec. */
        public String key() {
            return key;
        }
    }

    /** 2026-01-01T00:00:00Z, the epoch of idmint's own presets and of custom layouts. */
    public static final long DEFAULT_EPOCH_MILLIS = 1_767_225_600_000L;
    /** 2010-11-04T01:42:54.657Z, the epoch of Twitter Snowflake and Meituan Leaf. */
    public static final long TWITTER_EPOCH_MILLIS = 1_288_834_974_657L;

    /** Twitter Snowflake: 41 ms · 5 datacenter · 5 worker · 12 sequence. The default. */
    public static final Layout SNOWFLAKE = preset("snowflake",
            "time=41,datacenter=5,worker=5,sequence=12");
    /** CustomUUID style: 41 ms · 3 region (datacenter) · 10 worker · 9 sequence. */
    public static final Layout REGION = preset("region",
            "time=41,datacenter=3,worker=10,sequence=9");
    /** Instagram style: 41 ms · 13 shard (filled per call from a shard key) · 9 sequence. */
    public static final Layout INSTAGRAM = preset("instagram", "time=41,shard=13,sequence=9");
    /** Sonyflake: 39 × 10 ms · 8 sequence · 16 machine (worker). */
    public static final Layout SONYFLAKE = preset("sonyflake",
            "time=39,sequence=8,worker=16,tick=10ms");
    /** Baidu uid-generator: 28 s · 22 worker · 13 sequence (about 8.5 years). */
    public static final Layout UID_GENERATOR = preset("uid-generator",
            "time=28,worker=22,sequence=13,tick=1s");
    /** Below 2^53, for clients reading IDs as JavaScript numbers: 41 ms · 5 worker · 7 seq. */
    public static final Layout JS_SAFE = preset("js-safe", "time=41,worker=5,sequence=7");
    /** Meituan Leaf's snowflake, Twitter epoch: 41 ms · 10 worker · 12 sequence. */
    public static final Layout LEAF = preset("leaf",
            "time=41,worker=10,sequence=12,epoch=" + TWITTER_EPOCH_MILLIS);
    /** Twitter Snowflake with Twitter's epoch: 41 ms · 5 datacenter · 5 worker · 12 sequence. */
    public static final Layout TWITTER = preset("twitter",
            "time=41,datacenter=5,worker=5,sequence=12,epoch=" + TWITTER_EPOCH_MILLIS);
    /**
     * Discord, epoch 2015-01-01: 42 ms · 5 worker (here datacenter) · 5 process (here worker) ·
     * 12 sequence. All 64 bits: decoded as unsigned, never minted.
     */
    public static final Layout DISCORD = preset("discord",
            "time=42,datacenter=5,worker=5,sequence=12,epoch=2015-01-01T00:00:00Z");
    /**
     * Sonyflake with its own epoch, 2014-09-01: 39 × 10 ms · 8 sequence · 16 machine. A new name,
     * as {@code sonyflake} keeps the 2026 epoch that deployments already store.
     */
    public static final Layout SONYFLAKE_2014 = preset("sonyflake-2014",
            "time=39,sequence=8,worker=16,tick=10ms,epoch=2014-09-01T00:00:00Z");
    /**
     * Baidu uid-generator with DefaultUidGenerator's epoch, 2016-05-20 in UTC+8
     * (1463673600000): 28 s · 22 worker · 13 sequence. Its time field ran out in 2024-11, so it
     * decodes but no longer mints. A new name, as {@code uid-generator} keeps the 2026 epoch.
     */
    public static final Layout UID_GENERATOR_2016 = preset("uid-generator-2016",
            "time=28,worker=22,sequence=13,tick=1s,epoch=1463673600000");

    private static final List<Layout> PRESETS = List.of(SNOWFLAKE, REGION, INSTAGRAM, SONYFLAKE,
            UID_GENERATOR, JS_SAFE, LEAF, TWITTER, DISCORD, SONYFLAKE_2014, UID_GENERATOR_2016);

    private final String name;
    private final List<Field> order;
    private final Map<Field, Integer> widths;
    private final int[] width = new int[Field.values().length];
    private final int[] shift = new int[Field.values().length];
    private final int totalBits;
    private final long tickMillis;
    private final long epochMillis;
    /** {@link #exhaustionMillis()}: read on every fenced UUID, so worked out once. */
    private final long exhaustionMillis;

    /** Through {@link LayoutSpec}, which checks the fields first. */
    Layout(String name, List<Field> order, Map<Field, Integer> widths, long tickMillis,
            long epochMillis) {
        this.name = name;
        this.order = List.copyOf(order);
        this.widths = Collections.unmodifiableMap(new EnumMap<>(widths));
        this.tickMillis = tickMillis;
        this.epochMillis = epochMillis;
        int bits = 0;
        for (int i = order.size() - 1; i >= 0; i--) {
            Field f = order.get(i);
            width[f.ordinal()] = widths.get(f);
            shift[f.ordinal()] = bits;
            bits += widths.get(f);
        }
        this.totalBits = bits;
        long ticks = maxTick() + 1;
        this.exhaustionMillis = ticks > (Long.MAX_VALUE - epochMillis) / tickMillis
                ? Long.MIN_VALUE : epochMillis + ticks * tickMillis;
    }

    private static Layout preset(String name, String spec) {
        return LayoutSpec.parseFields(spec, name);
    }

    /** The presets, in the order the docs list them. */
    public static List<Layout> presets() {
        return PRESETS;
    }

    /**
     * Parses a layout spec: a preset name ({@code snowflake}, {@code region}, {@code instagram},
     * {@code sonyflake}, {@code uid-generator}, {@code js-safe}, {@code leaf}, {@code twitter},
     * {@code discord}, {@code sonyflake-2014}, {@code uid-generator-2016}), optionally followed by
     * {@code ,epoch=…} or {@code ,tick=…}; or a custom list of fields from the most significant
     * down, e.g. {@code
     * time=41,datacenter=5,worker=5,sequence=12,tick=1ms,epoch=2026-01-01T00:00:00Z}.
     *
     * @throws IllegalArgumentException naming the offending part when the spec is not valid
     */
    public static Layout parse(String spec) {
        return LayoutSpec.parse(spec);
    }

    /** The canonical spec: every non-empty field from the most significant, tick and epoch. */
    public String spec() {
        StringBuilder sb = new StringBuilder();
        for (Field f : order) {
            sb.append(f.key).append('=').append(width[f.ordinal()]).append(',');
        }
        sb.append("tick=").append(LayoutSpec.formatTick(tickMillis));
        sb.append(",epoch=").append(Instant.ofEpochMilli(epochMillis));
        return sb.toString();
    }

    /** The preset name, or {@code "custom"}. */
    public String name() {
        return name == null ? "custom" : name;
    }

    /** The fields with a width, from the most significant down. */
    public List<Field> fields() {
        return order;
    }

    public int bits(Field field) {
        return width[field.ordinal()];
    }

    /** Bit position of the field's least significant bit. */
    public int shift(Field field) {
        return shift[field.ordinal()];
    }

    /** Bits used in all; IDs are below {@code 2^totalBits()}. */
    public int totalBits() {
        return totalBits;
    }

    /**
     * Whether the layout uses all 64 bits, so that its IDs read as unsigned numbers (print them
     * with {@link Long#toUnsignedString(long)}); idmint decodes such IDs but does not mint them.
     */
    public boolean unsigned() {
        return totalBits == 64;
    }

    public long tickMillis() {
        return tickMillis;
    }

    public long epochMillis() {
        return epochMillis;
    }

    public long maxValue(Field field) {
        return (1L << width[field.ordinal()]) - 1;
    }

    public int maxDatacenterId() {
        return (int) maxValue(Field.DATACENTER);
    }

    public int maxWorkerId() {
        return (int) maxValue(Field.WORKER);
    }

    public int maxShardId() {
        return (int) maxValue(Field.SHARD);
    }

    /** How many IDs one worker can issue in one tick. */
    public long idsPerTick() {
        return 1L << width[Field.SEQUENCE.ordinal()];
    }

    /** How many IDs one worker can issue per second, at most, without running ahead of time. */
    public long idsPerSecond() {
        return idsPerTick() * 1000 / tickMillis;
    }

    /** The last tick the time field can hold. */
    public long maxTick() {
        return maxValue(Field.TIME);
    }

    /** Unix milliseconds at which the time field runs out (the first tick that does not fit). */
    public long exhaustionMillis() {
        return exhaustionMillis;
    }

    public Instant exhaustion() {
        return Instant.ofEpochMilli(exhaustionMillis());
    }

    /** The tick a Unix-millisecond time falls in (negative before the epoch). */
    public long tickOf(long unixMillis) {
        return Math.floorDiv(unixMillis - epochMillis, tickMillis);
    }

    /** Unix milliseconds at the start of a tick. */
    public long millisOf(long tick) {
        return epochMillis + tick * tickMillis;
    }

    /**
     * The IDs whose time falls in {@code [from, to)}: every ID this layout gives a moment in that
     * window is in the range, so {@code WHERE id >= from AND id < to} misses none of them. The
     * bounds are whole ticks (the first tick the window touches, the first tick after it): with
     * ticks longer than 1 ms, IDs of the moments before {@code from} or from {@code to} on that
     * share its tick match too. The time is the one the ID carries, which {@code
     * sequence.max-lead} may set a little ahead of the clock that minted it.
     *
     * @throws IllegalArgumentException when {@code from} is not before {@code to}, {@code from}
     *     is before the epoch, {@code to} reaches past the layout's last tick, or the layout is
     *     {@link #unsigned()} (its IDs do not sort as signed numbers)
     */
    public IdRange range(Instant from, Instant to) {
        if (unsigned()) {
            throw new IllegalArgumentException("layout " + name() + " uses all 64 bits: its IDs "
                    + "do not sort as signed numbers, so no range of them is a time window");
        }
        if (!from.isBefore(to)) {
            throw new IllegalArgumentException("the window's start " + from + " is not before "
                    + "its end " + to);
        }
        if (from.toEpochMilli() < epochMillis) {
            throw new IllegalArgumentException(from + " is before layout " + name()
                    + "'s epoch " + Instant.ofEpochMilli(epochMillis) + ": no ID has that time");
        }
        // The last moment in the window is just before its end.
        long last = tickOf(to.minusNanos(1).toEpochMilli());
        if (last >= maxTick()) {
            throw new IllegalArgumentException(to + " reaches the last tick of layout " + name()
                    + ", which runs out at " + exhaustion() + "; end the window before "
                    + Instant.ofEpochMilli(millisOf(maxTick())));
        }
        int timeShift = shift[Field.TIME.ordinal()];
        return new IdRange(tickOf(from.toEpochMilli()) << timeShift, (last + 1) << timeShift);
    }

    /**
     * Builds an ID from its parts.
     *
     * @throws IllegalArgumentException naming the field whose value does not fit
     */
    public long compose(long tick, long datacenterId, long workerId, long shardId, long sequence) {
        return put(Field.TIME, tick) | put(Field.DATACENTER, datacenterId)
                | put(Field.WORKER, workerId) | put(Field.SHARD, shardId)
                | put(Field.SEQUENCE, sequence);
    }

    private long put(Field field, long value) {
        if (value < 0 || value > maxValue(field)) {
            throw new IllegalArgumentException(field.key + " " + value + " does not fit layout "
                    + name() + " (0.." + maxValue(field) + ")");
        }
        return value << shift[field.ordinal()];
    }

    /** The value of one field of an ID. */
    public long get(long id, Field field) {
        return (id >>> shift[field.ordinal()]) & maxValue(field);
    }

    /**
     * Splits an ID into its parts. For an {@link #unsigned()} layout every {@code long} is an ID,
     * its 64 bits read as an unsigned number.
     *
     * @throws IllegalArgumentException when the ID is negative or uses bits this layout has not
     */
    public IdParts decode(long id) {
        if (id < 0 && !unsigned()) {
            throw new IllegalArgumentException("ID " + id
                    + " is negative; IDs of layout " + name() + " are positive");
        }
        if (totalBits < 63 && (id >>> totalBits) != 0) {
            throw new IllegalArgumentException("ID " + id + " uses more than the " + totalBits
                    + " bits of layout " + name());
        }
        long tick = get(id, Field.TIME);
        return new IdParts(id, millisOf(tick), (int) get(id, Field.DATACENTER),
                (int) get(id, Field.WORKER), (int) get(id, Field.SHARD), get(id, Field.SEQUENCE));
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Layout other && other.spec().equals(spec());
    }

    @Override
    public int hashCode() {
        return spec().hashCode();
    }

    @Override
    public String toString() {
        return name == null ? spec() : name;
    }
}

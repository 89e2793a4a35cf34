package io.idmint;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
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
 * most 63 bits; the bits above them are zero, so every ID is a positive {@code long}.
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

    /** 2026-01-01T00:00:00Z, the default epoch of every preset. */
    public static final long DEFAULT_EPOCH_MILLIS = 1_767_225_600_000L;

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

    private static final List<Layout> PRESETS =
            List.of(SNOWFLAKE, REGION, INSTAGRAM, SONYFLAKE, UID_GENERATOR, JS_SAFE);

    private final String name;
    private final List<Field> order;
    private final Map<Field, Integer> widths;
    private final int[] width = new int[Field.values().length];
    private final int[] shift = new int[Field.values().length];
    private final int totalBits;
    private final long tickMillis;
    private final long epochMillis;

    private Layout(String name, List<Field> order, Map<Field, Integer> widths, long tickMillis,
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
    }

    private static Layout preset(String name, String spec) {
        return parseFields(spec, name);
    }

    /** The presets, in the order the docs list them. */
    public static List<Layout> presets() {
        return PRESETS;
    }

    /**
     * Parses a layout spec: a preset name ({@code snowflake}, {@code region}, {@code instagram},
     * {@code sonyflake}, {@code uid-generator}, {@code js-safe}), optionally followed by
     * {@code ,epoch=…} or {@code ,tick=…}; or a custom list of fields from the most significant
     * down, e.g. {@code
     * time=41,datacenter=5,worker=5,sequence=12,tick=1ms,epoch=2026-01-01T00:00:00Z}.
     *
     * @throws IllegalArgumentException naming the offending part when the spec is not valid
     */
    public static Layout parse(String spec) {
        if (spec == null || spec.isBlank()) {
            throw new IllegalArgumentException("layout spec is empty; use a preset name such as "
                    + "'snowflake' or fields such as 'time=41,datacenter=5,worker=5,sequence=12'");
        }
        String trimmed = spec.trim();
        String head = trimmed.split(",", 2)[0].trim().toLowerCase(Locale.ROOT);
        if (head.contains("=")) {
            return parseFields(trimmed, null);
        }
        Layout base = PRESETS.stream().filter(p -> p.name.equals(head)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("unknown layout preset '" + head
                        + "'; presets are " + String.join(", ", presetNames())));
        String rest = trimmed.contains(",") ? trimmed.substring(trimmed.indexOf(',') + 1) : "";
        if (rest.isBlank()) {
            return base;
        }
        Map<String, String> overrides = new java.util.HashMap<>();
        for (String part : rest.split(",", -1)) {
            String[] kv = part.split("=", 2);
            String key = kv[0].trim().toLowerCase(Locale.ROOT);
            if (kv.length != 2 || !(key.equals("tick") || key.equals("epoch"))) {
                throw new IllegalArgumentException("layout '" + spec + "': a preset takes only "
                        + "'epoch=' and 'tick=' after its name, not '" + part.trim()
                        + "'; write all fields instead to change widths");
            }
            if (overrides.put(key, kv[1].trim()) != null) {
                throw new IllegalArgumentException("layout '" + spec + "': " + key
                        + " given twice");
            }
        }
        StringBuilder fields = new StringBuilder();
        for (Field f : base.order) {
            fields.append(f.key).append('=').append(base.widths.get(f)).append(',');
        }
        fields.append("tick=").append(overrides.getOrDefault("tick", formatTick(base.tickMillis)));
        fields.append(",epoch=").append(overrides.getOrDefault("epoch",
                Long.toString(base.epochMillis)));
        try {
            return parseFields(fields.toString(), null);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(e.getMessage().replace(fields, spec), e);
        }
    }

    private static Layout parseFields(String spec, String presetName) {
        List<Field> order = new ArrayList<>();
        Map<Field, Integer> widths = new EnumMap<>(Field.class);
        long tick = 1;
        long epoch = DEFAULT_EPOCH_MILLIS;
        boolean tickSeen = false;
        boolean epochSeen = false;
        for (String rawPart : spec.split(",", -1)) {
            String part = rawPart.trim();
            int eq = part.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("layout '" + spec
                        + "': expected key=value, got '"
                        + part + "'");
            }
            String key = part.substring(0, eq).trim().toLowerCase(Locale.ROOT);
            String value = part.substring(eq + 1).trim();
            switch (key) {
                case "tick" -> {
                    if (tickSeen) {
                        throw new IllegalArgumentException("layout '" + spec
                                + "': tick given twice");
                    }
                    tickSeen = true;
                    tick = parseTick(spec, value);
                }
                case "epoch" -> {
                    if (epochSeen) {
                        throw new IllegalArgumentException("layout '" + spec
                                + "': epoch given twice");
                    }
                    epochSeen = true;
                    epoch = parseEpoch(spec, value);
                }
                default -> {
                    Field field = fieldOf(spec, key);
                    if (widths.containsKey(field)) {
                        throw new IllegalArgumentException("layout '" + spec + "': field '"
                                + field.key + "' given twice");
                    }
                    int w;
                    try {
                        w = Integer.parseInt(value);
                    } catch (NumberFormatException e) {
                        throw new IllegalArgumentException("layout '" + spec + "': width of '"
                                + field.key + "' is not a whole number: '" + value + "'");
                    }
                    if (w < 0 || w > 63) {
                        throw new IllegalArgumentException("layout '" + spec + "': width of '"
                                + field.key + "' must be 0..63, got " + w);
                    }
                    widths.put(field, w);
                    order.add(field);
                }
            }
        }
        return validated(spec, presetName, order, widths, tick, epoch);
    }

    private static Layout validated(String spec, String presetName, List<Field> order,
            Map<Field, Integer> widths, long tick, long epoch) {
        if (!widths.containsKey(Field.TIME) || widths.get(Field.TIME) == 0) {
            throw new IllegalArgumentException("layout '" + spec + "': needs a 'time' field of at "
                    + "least 1 bit");
        }
        if (order.get(0) != Field.TIME) {
            throw new IllegalArgumentException("layout '" + spec + "': 'time' must be the first "
                    + "(most significant) field, so that IDs sort by time");
        }
        if (!widths.containsKey(Field.SEQUENCE)) {
            throw new IllegalArgumentException("layout '" + spec + "': needs a 'sequence' field");
        }
        int total = 0;
        for (int w : widths.values()) {
            total += w;
        }
        if (total > 63) {
            throw new IllegalArgumentException("layout '" + spec + "': fields add up to " + total
                    + " bits; at most 63 fit in a positive long");
        }
        for (Field f : Field.values()) {
            if (f != Field.TIME && f != Field.SEQUENCE && widths.getOrDefault(f, 0) > 31) {
                throw new IllegalArgumentException("layout '" + spec + "': '" + f.key
                        + "' may be at most 31 bits wide, got " + widths.get(f));
            }
        }
        // Drop zero-width fields so that equal layouts have one spec.
        List<Field> kept = new ArrayList<>();
        Map<Field, Integer> keptWidths = new EnumMap<>(Field.class);
        for (Field f : Field.values()) {
            keptWidths.put(f, 0);
        }
        for (Field f : order) {
            if (widths.get(f) > 0 || f == Field.SEQUENCE) {
                kept.add(f);
                keptWidths.put(f, widths.get(f));
            }
        }
        Layout layout = new Layout(presetName, kept, keptWidths, tick, epoch);
        if (layout.exhaustionMillis() == Long.MIN_VALUE) {
            throw new IllegalArgumentException("layout '" + spec + "': the time field outlasts "
                    + "any representable date; use fewer time bits or a shorter tick");
        }
        if (presetName == null) {
            for (Layout p : PRESETS) {
                if (p != null && p.spec().equals(layout.spec())) {
                    return p;
                }
            }
        }
        return layout;
    }

    private static Field fieldOf(String spec, String key) {
        return switch (key) {
            case "time" -> Field.TIME;
            case "datacenter", "dc", "region" -> Field.DATACENTER;
            case "worker", "machine" -> Field.WORKER;
            case "shard" -> Field.SHARD;
            case "sequence", "seq" -> Field.SEQUENCE;
            default -> throw new IllegalArgumentException("layout '" + spec + "': unknown key '"
                    + key + "'; keys are time, datacenter, worker, shard, sequence, tick, epoch");
        };
    }

    private static long parseTick(String spec, String value) {
        String v = value.toLowerCase(Locale.ROOT);
        long factor;
        String digits;
        if (v.endsWith("ms")) {
            factor = 1;
            digits = v.substring(0, v.length() - 2);
        } else if (v.endsWith("s")) {
            factor = 1000;
            digits = v.substring(0, v.length() - 1);
        } else {
            throw new IllegalArgumentException("layout '" + spec + "': tick '" + value
                    + "' needs a unit, e.g. 1ms, 10ms or 1s");
        }
        try {
            long n = Long.parseLong(digits);
            if (n < 1 || n > 86_400_000L / factor) {
                throw new IllegalArgumentException("layout '" + spec + "': tick '" + value
                        + "' must be between 1ms and one day");
            }
            return n * factor;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("layout '" + spec + "': tick '" + value
                    + "' is not a whole number of ms or s");
        }
    }

    private static long parseEpoch(String spec, String value) {
        long millis;
        try {
            millis = value.chars().allMatch(Character::isDigit) && !value.isEmpty()
                    ? Long.parseLong(value)
                    : Instant.parse(value).toEpochMilli();
        } catch (NumberFormatException | DateTimeParseException | ArithmeticException e) {
            throw new IllegalArgumentException("layout '" + spec + "': epoch '" + value
                    + "' is neither Unix milliseconds nor an ISO-8601 instant such as "
                    + "2026-01-01T00:00:00Z");
        }
        if (millis < 0) {
            throw new IllegalArgumentException("layout '" + spec + "': epoch '" + value
                    + "' is before 1970");
        }
        return millis;
    }

    private static String formatTick(long tickMillis) {
        return tickMillis % 1000 == 0 ? (tickMillis / 1000) + "s" : tickMillis + "ms";
    }

    private static List<String> presetNames() {
        return List.of("snowflake", "region", "instagram", "sonyflake", "uid-generator", "js-safe");
    }

    /** The canonical spec: every non-empty field from the most significant, tick and epoch. */
    public String spec() {
        StringBuilder sb = new StringBuilder();
        for (Field f : order) {
            sb.append(f.key).append('=').append(width[f.ordinal()]).append(',');
        }
        sb.append("tick=").append(formatTick(tickMillis));
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
        long ticks = maxTick() + 1;
        if (ticks > (Long.MAX_VALUE - epochMillis) / tickMillis) {
            return Long.MIN_VALUE;
        }
        return epochMillis + ticks * tickMillis;
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
     * Splits an ID into its parts.
     *
     * @throws IllegalArgumentException when the ID is negative or uses bits this layout has not
     */
    public IdParts decode(long id) {
        if (id < 0) {
            throw new IllegalArgumentException("ID " + id
                    + " is negative; idmint IDs are positive");
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

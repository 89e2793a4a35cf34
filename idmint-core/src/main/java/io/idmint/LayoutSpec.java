package io.idmint;

import io.idmint.Layout.Field;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Layout specs as text: parsing a preset name with its overrides or a list of fields, and the
 * checks a layout must pass (docs/configuration.md, "Layouts"). {@link Layout} is the value.
 */
final class LayoutSpec {

    private LayoutSpec() {
    }

    /**
     * Parses a layout spec: a preset name (see {@link Layout#parse}), optionally followed by
     * {@code ,epoch=…} or {@code ,tick=…}; or a custom list of fields from the most significant
     * down, e.g. {@code
     * time=41,datacenter=5,worker=5,sequence=12,tick=1ms,epoch=2026-01-01T00:00:00Z}.
     *
     * @throws IllegalArgumentException naming the offending part when the spec is not valid
     */
    static Layout parse(String spec) {
        if (spec == null || spec.isBlank()) {
            throw new IllegalArgumentException("layout spec is empty; use a preset name such as "
                    + "'snowflake' or fields such as 'time=41,datacenter=5,worker=5,sequence=12'");
        }
        String trimmed = spec.trim();
        String head = trimmed.split(",", 2)[0].trim().toLowerCase(Locale.ROOT);
        if (head.contains("=")) {
            return parseFields(trimmed, null);
        }
        Layout base = Layout.presets().stream().filter(p -> p.name().equals(head)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("unknown layout preset '" + head
                        + "'; presets are " + String.join(", ", presetNames())));
        String rest = trimmed.contains(",") ? trimmed.substring(trimmed.indexOf(',') + 1) : "";
        if (rest.isBlank()) {
            return base;
        }
        Map<String, String> overrides = new HashMap<>();
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
        for (Field f : base.fields()) {
            fields.append(f.key()).append('=').append(base.bits(f)).append(',');
        }
        fields.append("tick=").append(overrides.getOrDefault("tick",
                formatTick(base.tickMillis())));
        fields.append(",epoch=").append(overrides.getOrDefault("epoch",
                Long.toString(base.epochMillis())));
        try {
            return parseFields(fields.toString(), null);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(e.getMessage().replace(fields, spec), e);
        }
    }

    static Layout parseFields(String spec, String presetName) {
        List<Field> order = new ArrayList<>();
        Map<Field, Integer> widths = new EnumMap<>(Field.class);
        long tick = 1;
        long epoch = Layout.DEFAULT_EPOCH_MILLIS;
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
                                + field.key() + "' given twice");
                    }
                    int w;
                    try {
                        w = Integer.parseInt(value);
                    } catch (NumberFormatException e) {
                        throw new IllegalArgumentException("layout '" + spec + "': width of '"
                                + field.key() + "' is not a whole number: '" + value + "'");
                    }
                    if (w < 0 || w > 63) {
                        throw new IllegalArgumentException("layout '" + spec + "': width of '"
                                + field.key() + "' must be 0..63, got " + w);
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
        if (total > 64) {
            throw new IllegalArgumentException("layout '" + spec + "': fields add up to " + total
                    + " bits; at most 64 fit in an ID (63 for IDs that idmint mints, whose sign "
                    + "bit stays 0)");
        }
        for (Field f : Field.values()) {
            if (f != Field.TIME && f != Field.SEQUENCE && widths.getOrDefault(f, 0) > 31) {
                throw new IllegalArgumentException("layout '" + spec + "': '" + f.key()
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
            for (Layout p : Layout.presets()) {
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

    static String formatTick(long tickMillis) {
        return tickMillis % 1000 == 0 ? (tickMillis / 1000) + "s" : tickMillis + "ms";
    }

    private static List<String> presetNames() {
        return Layout.presets().stream().map(Layout::name).toList();
    }
}

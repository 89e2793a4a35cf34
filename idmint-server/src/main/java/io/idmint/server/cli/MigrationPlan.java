package io.idmint.server.cli;

import io.idmint.IdParts;
import io.idmint.Layout;
import io.idmint.server.json.ApiJson;
import io.idmint.spi.support.Durations;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;

/**
 * The arithmetic of {@code idmint migrate plan} (docs/migration.md): from IDs another generator
 * issued, an idmint layout and epoch whose every ID is numerically above all of them, or the
 * reason there is none. Both plans rest on the time field being the most significant: an ID whose
 * tick is above {@code maxId >>> shift(time)} is above {@code maxId}, whatever made it.
 */
final class MigrationPlan {

    /** What {@code --from} names: each system in its real layout and epoch. */
    static final Map<String, Layout> SOURCES = sources();

    /** idmint's layout when the source's own cannot be kept: the default widths, 1 ms ticks. */
    private static final String NEW_WIDTHS = "time=41,datacenter=5,worker=5,sequence=12";

    /** One existing ID and the line of the file it came from (0 for {@code --max-id}). */
    record Sample(long id, int line) {
    }

    /**
     * A plan.
     *
     * @param source the layout the existing IDs were decoded in
     * @param count how many IDs were read
     * @param lowestMillis the earliest time among them
     * @param highest the numerically highest ID (unsigned)
     * @param nodes the distinct datacenter/worker pairs among them
     * @param target the layout idmint is to use
     * @param keep whether the target is the source's own layout
     * @param notBeforeMillis the first millisecond at which idmint's IDs are above {@code highest}
     * @param horizonMillis the date the target must last to
     */
    record Plan(Layout source, int count, long lowestMillis, Sample highest, int nodes,
            Layout target, boolean keep, long notBeforeMillis, long horizonMillis) {
    }

    private MigrationPlan() {
    }

    private static Map<String, Layout> sources() {
        Map<String, Layout> m = new LinkedHashMap<>();
        m.put("leaf", Layout.LEAF);
        m.put("uid-generator", Layout.UID_GENERATOR_2016);
        m.put("twitter", Layout.TWITTER);
        m.put("sonyflake", Layout.SONYFLAKE_2014);
        m.put("discord", Layout.DISCORD);
        // The layout names a plan prints (uid-generator-2016, sonyflake-2014) name them too.
        for (Layout l : List.copyOf(m.values())) {
            m.putIfAbsent(l.name(), l);
        }
        return m;
    }

    /**
     * The layout of {@code --from}: a source name, or a layout spec for a source configured with
     * other widths or another epoch.
     */
    static Layout source(String from) {
        Layout named = SOURCES.get(from.trim().toLowerCase(Locale.ROOT));
        if (named != null) {
            return named;
        }
        if (!from.contains("=")) {
            throw new IllegalArgumentException("unknown --from '" + from + "'; sources are "
                    + String.join(", ", SOURCES.keySet()) + ", or a layout spec such as "
                    + "'time=41,worker=10,sequence=12,epoch=1288834974657'");
        }
        return Layout.parse(from);
    }

    /** Reads one decimal ID, unsigned up to 2^64-1. */
    static Sample parse(String text, int line) {
        String s = text.trim();
        String where = line == 0 ? "--max-id" : "line " + line;
        if (s.isEmpty() || s.length() > 20 || !s.chars().allMatch(c -> c >= '0' && c <= '9')) {
            throw new IllegalArgumentException(where + ": '" + text + "' is not a decimal ID "
                    + "(1 to 20 digits, at most 18446744073709551615)");
        }
        try {
            return new Sample(Long.parseUnsignedLong(s), line);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(where + ": '" + text + "' is above "
                    + "18446744073709551615, the largest 64-bit ID");
        }
    }

    /** The IDs of a file, one per line; blank lines are skipped. */
    static List<Sample> read(List<String> lines, String file) {
        List<Sample> ids = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            if (!lines.get(i).isBlank()) {
                ids.add(parse(lines.get(i), i + 1));
            }
        }
        if (ids.isEmpty()) {
            throw new IllegalArgumentException("--sample-ids " + file + " holds no IDs");
        }
        return ids;
    }

    /**
     * Plans the move, or refuses naming the reason.
     *
     * @param maxSkewMillis how far ahead of this machine's clock an ID may be and still count as
     *     a clock difference rather than an ID from the future
     * @throws IllegalArgumentException when no plan is safe
     */
    static Plan plan(Layout source, List<Sample> ids, long nowMillis, long horizonMillis,
            long maxSkewMillis) {
        Sample highest = null;
        long lowest = Long.MAX_VALUE;
        TreeSet<Long> nodes = new TreeSet<>();
        for (Sample s : ids) {
            IdParts p = decode(source, s);
            if (p.timestampMillis() > nowMillis + maxSkewMillis) {
                throw new IllegalArgumentException(where(s) + "ID " + text(s.id())
                        + " decodes to " + ApiJson.iso(p.timestampMillis()) + ", "
                        + Durations.format(Duration.ofMillis(p.timestampMillis() - nowMillis))
                        + " after this machine's clock (" + ApiJson.iso(nowMillis) + "): an ID "
                        + "from the future. Its generator's clock ran ahead, or it is not a "
                        + source + " ID (wrong --from, or a sample that mixes layouts)");
            }
            lowest = Math.min(lowest, p.timestampMillis());
            nodes.add(((long) p.datacenterId() << 32) | p.workerId());
            if (highest == null || Long.compareUnsigned(s.id(), highest.id()) > 0) {
                highest = s;
            }
        }
        if (!source.unsigned() && source.exhaustionMillis() >= horizonMillis) {
            long tick = (highest.id() >>> source.shift(Layout.Field.TIME)) + 1;
            return new Plan(source, ids.size(), lowest, highest, nodes.size(), source, true,
                    source.millisOf(tick), horizonMillis);
        }
        String kept = source.unsigned() ? "layout " + source + " uses all 64 bits, and idmint "
                + "mints at most 63" : "layout " + source + " runs out at "
                + ApiJson.iso(source.exhaustionMillis()) + ", before the horizon "
                + ApiJson.iso(horizonMillis);
        if (highest.id() < 0) {
            throw new IllegalArgumentException(kept + "; and " + where(highest) + "ID "
                    + text(highest.id()) + " is at or above 2^63, so no ID idmint mints (a "
                    + "positive 64-bit long) can sort above it");
        }
        Layout widths = Layout.parse(NEW_WIDTHS);
        long ticks = (highest.id() >>> widths.shift(Layout.Field.TIME)) + 1;
        long epoch = Math.floorDiv(nowMillis - ticks, 1000) * 1000;
        long runsOut = epoch + (widths.maxTick() + 1);
        if (epoch < 0 || runsOut < horizonMillis) {
            throw new IllegalArgumentException(kept + "; and a new epoch cannot help: to sort "
                    + "above " + where(highest) + "ID " + text(highest.id()) + ", layout "
                    + NEW_WIDTHS + " needs an epoch at or before " + ApiJson.iso(nowMillis - ticks)
                    + ", and its time field would run out at " + ApiJson.iso(runsOut)
                    + ", before the horizon " + ApiJson.iso(horizonMillis) + " (--horizon)");
        }
        Layout target = Layout.parse(NEW_WIDTHS + ",epoch=" + ApiJson.iso(epoch));
        long tick = (highest.id() >>> target.shift(Layout.Field.TIME)) + 1;
        return new Plan(source, ids.size(), lowest, highest, nodes.size(), target, false,
                target.millisOf(tick), horizonMillis);
    }

    private static IdParts decode(Layout source, Sample s) {
        if (!source.unsigned() && (s.id() < 0 || source.totalBits() < 63
                && s.id() >>> source.totalBits() != 0)) {
            throw new IllegalArgumentException(where(s) + "ID " + text(s.id()) + " does not fit "
                    + "the " + source.totalBits() + " bits of layout " + source + ": it is not a "
                    + source + " ID (wrong --from, or a sample that mixes layouts)");
        }
        return source.decode(s.id());
    }

    private static String where(Sample s) {
        return s.line() == 0 ? "" : "line " + s.line() + ": ";
    }

    static String text(long id) {
        return Long.toUnsignedString(id);
    }
}

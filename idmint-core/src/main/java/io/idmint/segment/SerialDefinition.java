package io.idmint.segment;

import io.idmint.spi.RangeStore;
import io.idmint.spi.support.Names;
import java.time.DateTimeException;
import java.time.ZoneId;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * What a serial is: a name, the period its counter restarts in, the time zone that period is
 * read in, the template its values are written in, the first value of each period, and the
 * most values a second it must be able to mint (which bounds a counter's width). Checked when
 * built: an unknown template field, a counter width the period can outgrow at that rate, a zone
 * that does not exist, are refused naming the problem. Stored in the segment store as {@link
 * #text()}, one {@code key=value} line each, so every node reads the same definition.
 *
 * <pre>{@code
 * SerialDefinition invoice = SerialDefinition.newBuilder("invoice")
 *         .period(SerialPeriod.DAY).zone(ZoneId.of("Europe/Berlin"))
 *         .template("INV-{date:yyyyMMdd}-{counter:6}{check}").build();
 * }</pre>
 *
 * <p>Template fields: {@code {date:PATTERN}} the period's first day in a {@link
 * java.time.format.DateTimeFormatter} pattern, English names and ISO weeks ({@code
 * YYYY-'W'ww}), not for period {@code none}; {@code {counter}}
 * the period's counter, or {@code {counter:N}} zero-padded to N digits (exactly one counter);
 * {@code {code:BITS}} the counter's public code instead (FF1 over a domain of BITS bits, 20 to
 * 63, from the codes given to {@link Serials}: fixed length, volume hidden); {@code {check}} one
 * ISO/IEC 7064 MOD 37,36 check symbol ({@code 0-9A-Z}) over the letters and
 * digits written before it; {@code {{} and {@code }}} a brace; anything else is literal text.
 */
public final class SerialDefinition {

    /** The longest serial name: its per-period tags ({@code name~2026-11-28}) must fit 64. */
    public static final int MAX_NAME = 48;
    /**
     * The default of {@link Builder#maxRate}: values a second the width must hold (10: a daily
     * counter of 6 digits; raise it for a busier serial, and widen the counter with it).
     */
    public static final long DEFAULT_MAX_RATE = 10;
    /** The longest template, in characters. */
    public static final int MAX_TEMPLATE = 100;
    /** The default of {@link Builder#step}: values each node takes from the store at once. */
    public static final long DEFAULT_STEP = 100;

    private final String name;
    private final SerialPeriod period;
    private final ZoneId zone;
    private final String template;
    private final long first;
    private final long maxRate;
    private final long step;
    private final SerialTemplate compiled;

    private SerialDefinition(Builder b) {
        this.name = b.name;
        this.period = b.period;
        this.zone = b.zone;
        this.template = b.template;
        this.first = b.first;
        this.maxRate = b.maxRate;
        this.step = b.step;
        if (template == null) {
            throw new IllegalArgumentException("serial '" + name + "' needs a template, such "
                    + "as INV-{date:yyyyMMdd}-{counter:6}");
        }
        this.compiled = SerialTemplate.compile(name, template, period, b.checkPeriods);
        if (period == SerialPeriod.NONE) {
            return;
        }
        long last = lastInAPeriod();
        Integer codeBits = compiled.codeBits();
        if (codeBits != null && codeBits < 63 && last > (1L << codeBits) - 1) {
            throw new IllegalArgumentException("serial '" + name + "': a code of " + codeBits
                    + " bits holds values up to " + ((1L << codeBits) - 1) + ", but at "
                    + "max-rate " + maxRate + " a second a " + period.key() + " can reach "
                    + last + "; give the code more bits, or lower max-rate");
        }
        Integer width = compiled.width();
        if (width != null && width < 19 && last > pow10(width) - 1) {
            throw new IllegalArgumentException("serial '" + name + "': a counter of width "
                    + width + " holds values up to " + (pow10(width) - 1) + ", but at "
                    + "max-rate " + maxRate + " a second a " + period.key() + " can reach "
                    + last + "; widen the counter to at least " + digits(last)
                    + " digits, or lower max-rate");
        }
    }

    /** The highest counter a period can reach at {@code max-rate}, saturating at 2^63-1. */
    private long lastInAPeriod() {
        try {
            return Math.addExact(first,
                    Math.multiplyExact(maxRate, period.longestSeconds()) - 1);
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE;
        }
    }

    public static Builder newBuilder(String name) {
        return new Builder(name);
    }

    /**
     * Reads a definition as {@link #text()} writes it, as a store holds it: checked as a whole
     * but for the century of period dates its template was checked over when it was defined
     * (tens of milliseconds for a daily serial, repeated by every node and every list
     * otherwise).
     *
     * @throws IllegalArgumentException naming the line or value that is wrong
     */
    public static SerialDefinition parse(String name, String text) {
        Builder b = newBuilder(name);
        b.checkPeriods = false;
        for (String line : text.split("\n")) {
            if (line.isBlank()) {
                continue;
            }
            int eq = line.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("serial '" + name + "': line '" + line
                        + "' is not key=value");
            }
            String key = line.substring(0, eq);
            String value = line.substring(eq + 1);
            switch (key) {
                case "period" -> b.period(SerialPeriod.parse(value));
                case "zone" -> b.zone(value);
                case "template" -> b.template(value);
                case "first" -> b.first(number(name, key, value));
                case "max-rate" -> b.maxRate(number(name, key, value));
                case "step" -> b.step(number(name, key, value));
                default -> throw new IllegalArgumentException("serial '" + name + "': unknown "
                        + "key '" + key + "'; keys are period, zone, template, first, max-rate "
                        + "and step");
            }
        }
        return b.build();
    }

    /** The stored form: one {@code key=value} line each, in a fixed order. */
    public String text() {
        Map<String, String> lines = new LinkedHashMap<>();
        lines.put("period", period.key());
        lines.put("zone", zone.getId());
        lines.put("template", template);
        lines.put("first", Long.toString(first));
        lines.put("max-rate", Long.toString(maxRate));
        lines.put("step", Long.toString(step));
        StringBuilder sb = new StringBuilder();
        lines.forEach((k, v) -> sb.append(k).append('=').append(v).append('\n'));
        return sb.toString();
    }

    public String name() {
        return name;
    }

    public SerialPeriod period() {
        return period;
    }

    public ZoneId zone() {
        return zone;
    }

    public String template() {
        return template;
    }

    /** The first value of each period's counter. */
    public long first() {
        return first;
    }

    /** The most values a second the counter's width was checked for. */
    public long maxRate() {
        return maxRate;
    }

    /** How many values a node takes from the store at once. */
    public long step() {
        return step;
    }

    SerialTemplate compiled() {
        return compiled;
    }

    /** The bits of the counter's code when the template writes one ({@code {code:BITS}}). */
    public java.util.OptionalInt codeBits() {
        Integer bits = compiled.codeBits();
        return bits == null ? java.util.OptionalInt.empty() : java.util.OptionalInt.of(bits);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SerialDefinition d && d.name.equals(name) && d.text().equals(text());
    }

    @Override
    public int hashCode() {
        return Objects.hash(name, text());
    }

    @Override
    public String toString() {
        return name + ": " + text().replace('\n', ' ').strip();
    }

    private static long pow10(int n) {
        long p = 1;
        for (int i = 0; i < n; i++) {
            p *= 10;
        }
        return p;
    }

    private static int digits(long v) {
        return Long.toString(v).length();
    }

    private static long number(String name, String key, String value) {
        try {
            return Long.parseLong(value.strip());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("serial '" + name + "': " + key + " must be a "
                    + "whole number, got '" + value + "'", e);
        }
    }

    /** Builds a definition; {@link #build()} checks it as a whole. */
    public static final class Builder {

        private final String name;
        private SerialPeriod period = SerialPeriod.NONE;
        private ZoneId zone = ZoneId.of("UTC");
        private String template;
        private long first = 1;
        private long maxRate = DEFAULT_MAX_RATE;
        private long step = DEFAULT_STEP;
        /** Whether the template's dates are checked over a century ({@link #parse}: not). */
        private boolean checkPeriods = true;

        private Builder(String name) {
            Objects.requireNonNull(name, "name");
            if (!Names.isValidTag(name) || name.length() > MAX_NAME || name.indexOf('~') >= 0) {
                throw new IllegalArgumentException("serial name '" + name + "' must be 1 to "
                        + MAX_NAME + " characters of a segment tag's (" + Names.TAG_RULE
                        + "), without '~'");
            }
            this.name = name;
        }

        /** When the counter restarts; default {@link SerialPeriod#NONE} (never). */
        public Builder period(SerialPeriod period) {
            this.period = Objects.requireNonNull(period, "period");
            return this;
        }

        /** The zone periods are read in; default UTC. */
        public Builder zone(ZoneId zone) {
            this.zone = Objects.requireNonNull(zone, "zone");
            return this;
        }

        /**
         * The zone by its ID ({@code Europe/Berlin}, {@code UTC}).
         *
         * @throws IllegalArgumentException naming the ID when no such zone exists
         */
        public Builder zone(String id) {
            try {
                return zone(ZoneId.of(id));
            } catch (DateTimeException e) {
                throw new IllegalArgumentException("serial '" + name + "': time zone '" + id
                        + "' does not exist (use a region such as Europe/Berlin, or UTC)", e);
            }
        }

        /** How values are written (fields in the class comment). Required. */
        public Builder template(String template) {
            Objects.requireNonNull(template, "template");
            if (template.isEmpty() || template.indexOf('\n') >= 0
                    || template.length() > MAX_TEMPLATE) {
                throw new IllegalArgumentException("serial '" + name + "': the template must "
                        + "be one line of 1 to " + MAX_TEMPLATE + " characters");
            }
            this.template = template;
            return this;
        }

        /** Each period's first value, 0 or more; default 1. */
        public Builder first(long first) {
            if (first < 0) {
                throw new IllegalArgumentException("serial '" + name + "': first must be 0 or "
                        + "more, got " + first);
            }
            this.first = first;
            return this;
        }

        /** The most values a second the counter's width must hold, 1 or more; default 10. */
        public Builder maxRate(long maxRate) {
            if (maxRate < 1) {
                throw new IllegalArgumentException("serial '" + name + "': max-rate must be 1 "
                        + "or more, got " + maxRate);
            }
            this.maxRate = maxRate;
            return this;
        }

        /** Values a node takes from the store at once, 1 to 2^40; default 100. */
        public Builder step(long step) {
            if (step < 1 || step > RangeStore.MAX_STEP) {
                throw new IllegalArgumentException("serial '" + name + "': step must be 1 to "
                        + RangeStore.MAX_STEP + ", got " + step);
            }
            this.step = step;
            return this;
        }

        /** @throws IllegalArgumentException naming what is wrong with the definition */
        public SerialDefinition build() {
            return new SerialDefinition(this);
        }
    }
}

package io.idmint.shardingsphere;

import com.google.common.collect.BoundType;
import com.google.common.collect.Range;
import io.idmint.Layout;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;

/**
 * An algorithm's {@code props}, read strictly: a key the algorithm does not know, a missing
 * required one or a bad value is refused with a message naming the algorithm type and the key.
 */
final class Props {

    private final String type;
    private final Properties props;

    /**
     * @throws IllegalArgumentException naming the first key not in {@code known}
     */
    Props(String type, Properties props, Set<String> known) {
        this.type = type;
        this.props = props == null ? new Properties() : props;
        for (String key : new TreeSet<>(this.props.stringPropertyNames())) {
            if (!known.contains(key)) {
                throw new IllegalArgumentException(type + ": unknown property '" + key
                        + "'; the properties are " + new TreeSet<>(known));
            }
        }
    }

    /** The value of {@code key}, trimmed; {@code fallback} when absent or blank. */
    String get(String key, String fallback) {
        String value = props.getProperty(key);
        return value == null || value.isBlank() ? fallback : value.trim();
    }

    /** @throws IllegalArgumentException when {@code key} is absent or blank */
    String required(String key, String what) {
        String value = get(key, null);
        if (value == null) {
            throw new IllegalArgumentException(type + ": property '" + key + "' is required ("
                    + what + ")");
        }
        return value;
    }

    /** @throws IllegalArgumentException when the value is not an integer in {@code [min, max]} */
    int integer(String key, int fallback, int min, int max) {
        String value = get(key, null);
        if (value == null) {
            return fallback;
        }
        try {
            int n = Integer.parseInt(value);
            if (n >= min && n <= max) {
                return n;
            }
        } catch (NumberFormatException e) {
            // refused below
        }
        throw new IllegalArgumentException(type + ": property '" + key + "' must be an integer "
                + "from " + min + " to " + max + ", got '" + value + "'");
    }

    /** @throws IllegalArgumentException when the value is not {@code true} or {@code false} */
    boolean bool(String key, boolean fallback) {
        String value = get(key, null);
        if (value == null) {
            return fallback;
        }
        if (value.equals("true") || value.equals("false")) {
            return Boolean.parseBoolean(value);
        }
        throw new IllegalArgumentException(type + ": property '" + key + "' must be true or "
                + "false, got '" + value + "'");
    }

    /** The {@code layout} property: a preset or a spec, default {@code snowflake}. */
    Layout layout() {
        try {
            return Layout.parse(get("layout", "snowflake"));
        } catch (IllegalArgumentException e) {
            throw bad("layout", "is not a layout: " + e.getMessage());
        }
    }

    /** A refusal of {@code key}'s value, naming the type and the key. */
    IllegalArgumentException bad(String key, String why) {
        return new IllegalArgumentException(type + ": property '" + key + "' " + why);
    }

    /** The properties as given, for an algorithm's {@code getProps}. */
    Properties all() {
        return props;
    }

    /**
     * The first and last ID of a range of sharding values (an open bound moved in by one), or
     * null when it has no lower or no upper bound.
     */
    static long[] closedBounds(String type, Range<Comparable<?>> range) {
        if (!range.hasLowerBound() || !range.hasUpperBound()) {
            return null;
        }
        long lo = id(type, range.lowerEndpoint());
        long hi = id(type, range.upperEndpoint());
        return new long[] {range.lowerBoundType() == BoundType.OPEN ? lo + 1 : lo,
            range.upperBoundType() == BoundType.OPEN ? hi - 1 : hi};
    }

    /** An ID from a sharding value: a number, or its decimal digits. */
    static long id(String type, Comparable<?> value) {
        if (value instanceof Number n) {
            return n.longValue();
        }
        try {
            return Long.parseLong(String.valueOf(value).trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(type + ": sharding value '" + value
                    + "' is not an ID (a 64-bit integer)", e);
        }
    }
}

package io.idmint.spi.support;

import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A node's worker settings as text, read alike by the server ({@code workers}, {@code worker})
 * and the Spring Boot starter ({@code idmint.workers}, {@code idmint.worker}), so both accept the
 * same values.
 */
public final class NodeValues {

    /** The most workers one node leases. */
    public static final int MAX_WORKERS = 1024;

    /** The pod name ends in {@code -N}: a StatefulSet's ordinal, no sign, no leading zero. */
    private static final Pattern ORDINAL = Pattern.compile(".*-(0|[1-9][0-9]{0,8})");

    private NodeValues() {
    }

    /**
     * How many workers: a whole number from 1 to {@value #MAX_WORKERS}, or {@code auto} for one
     * per available processor.
     *
     * @throws IllegalArgumentException saying what was expected
     */
    public static int workers(String text) {
        if (text.trim().equalsIgnoreCase("auto")) {
            return Runtime.getRuntime().availableProcessors();
        }
        return (int) whole(text, 1, MAX_WORKERS, "a whole number from 1 to " + MAX_WORKERS
                + ", or auto (one per available processor)");
    }

    /**
     * The preferred worker: a whole number, or {@code ordinal} for the {@code N} that ends the
     * pod name (a StatefulSet names its pods {@code <set>-0}, {@code <set>-1}, …), read from
     * {@code POD_NAME}, else {@code HOSTNAME}. The registry still claims it; whether it fits the
     * layout is checked where the layout is known.
     *
     * @param env the process environment
     * @throws IllegalArgumentException saying what was expected, or why there is no ordinal
     */
    public static int worker(String text, Map<String, String> env) {
        if (!text.trim().equals("ordinal")) {
            return (int) whole(text, 0, Integer.MAX_VALUE,
                    "a whole number from 0, or ordinal (the N ending POD_NAME or HOSTNAME)");
        }
        String variable = present(env.get("POD_NAME")) ? "POD_NAME" : "HOSTNAME";
        String name = env.get(variable);
        if (!present(name)) {
            throw new IllegalArgumentException("ordinal needs the pod name in POD_NAME or "
                    + "HOSTNAME, and neither is set");
        }
        Matcher m = ORDINAL.matcher(name.trim());
        if (!m.matches()) {
            throw new IllegalArgumentException("ordinal: " + variable + " '" + name
                    + "' does not end in -N (a StatefulSet pod is named <set>-<ordinal>, "
                    + "such as idmint-3)");
        }
        return Integer.parseInt(m.group(1));
    }

    /**
     * A whole number in decimal digits (no sign, no fraction, blanks around it ignored) from
     * {@code min} to {@code max}.
     *
     * @param expected what the message says was expected
     * @throws IllegalArgumentException saying what was expected
     */
    public static long whole(String text, long min, long max, String expected) {
        String s = text.trim();
        long n = -1;
        if (!s.isEmpty() && s.length() <= 19 && s.chars().allMatch(c -> c >= '0' && c <= '9')) {
            try {
                n = Long.parseLong(s);
            } catch (NumberFormatException e) {
                n = -1;
            }
        }
        if (n < min || n > max || n < 0) {
            throw new IllegalArgumentException("expected " + expected);
        }
        return n;
    }

    private static boolean present(String value) {
        return value != null && !value.isBlank();
    }
}

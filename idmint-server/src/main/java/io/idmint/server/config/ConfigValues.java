package io.idmint.server.config;

import io.idmint.ClockPolicy;
import io.idmint.codes.CodeSettings;
import io.idmint.formats.Flake128;
import io.idmint.segment.SegmentOrder;
import io.idmint.spi.RangeStore;
import io.idmint.spi.support.NodeValues;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * How {@link Config} reads each kind of value: one parser per kind (numbers, durations, words,
 * keys), each throwing {@link IllegalArgumentException} with what it expected; {@link Config}
 * adds the key, the value and where it came from.
 */
final class ConfigValues {

    /** A TCP port; 0 asks for any free one. */
    static final Function<String, Integer> PORT =
            integer(0, 65535, "a port from 0 to 65535 (0: any free port)");
    /** A codes key version: the first symbol of a code. */
    static final Function<String, Integer> KEY_VERSION = CodeSettings::keyVersion;
    /** A segment step: 1 to 2^40. */
    static final Function<String, Long> SEGMENT_STEP = number(1, RangeStore.MAX_STEP,
            "a whole number from 1 to " + RangeStore.MAX_STEP + " (2^40)");

    private static final Pattern MAC = Pattern.compile("\\p{XDigit}{2}([:-]\\p{XDigit}{2}){5}");

    private ConfigValues() {
    }

    /**
     * The one number parser: a whole number in decimal digits (no sign, no fraction, blanks
     * around it ignored) from {@code min} to {@code max}.
     *
     * @param expected what the message says was expected
     */
    static long number(String text, long min, long max, String expected) {
        return NodeValues.whole(text, min, max, expected);
    }

    /** {@link #number} from {@code min} to {@code max}, saying so when it is not. */
    static Function<String, Long> number(long min, long max) {
        return number(min, max, "a whole number from " + min + " to " + max);
    }

    static Function<String, Long> number(long min, long max, String expected) {
        return text -> number(text, min, max, expected);
    }

    /** {@link #number} for keys that hold an int. */
    static Function<String, Integer> integer(int min, int max) {
        return integer(min, max, "a whole number from " + min + " to " + max);
    }

    static Function<String, Integer> integer(int min, int max, String expected) {
        return text -> (int) number(text, min, max, expected);
    }

    static ClockPolicy clockPolicy(String text) {
        return switch (text.trim().toLowerCase(Locale.ROOT)) {
            case "fail" -> ClockPolicy.FAIL;
            case "continue" -> ClockPolicy.CONTINUE;
            default -> throw new IllegalArgumentException("expected fail or continue");
        };
    }

    /** {@code zero} (false) or {@code random} (true): where each tick's sequence starts. */
    static boolean sequenceStart(String text) {
        return switch (text.trim().toLowerCase(Locale.ROOT)) {
            case "zero" -> false;
            case "random" -> true;
            default -> throw new IllegalArgumentException("expected zero or random");
        };
    }

    static SegmentOrder segmentOrder(String text) {
        return switch (text.trim().toLowerCase(Locale.ROOT)) {
            case "issue" -> SegmentOrder.ISSUE;
            case "relaxed" -> SegmentOrder.RELAXED;
            default -> throw new IllegalArgumentException("expected issue or relaxed");
        };
    }

    /** {@code leaf.compat}: true for {@code strict}, false for {@code off}. */
    static boolean leafCompat(String text) {
        return switch (text.trim()) {
            case "strict" -> true;
            case "off" -> false;
            default -> throw new IllegalArgumentException("expected off or strict");
        };
    }

    static boolean bool(String text) {
        return switch (text.trim().toLowerCase(Locale.ROOT)) {
            case "true", "yes", "on", "1" -> true;
            case "false", "no", "off", "0" -> false;
            default -> throw new IllegalArgumentException("expected true or false");
        };
    }

    static String text(String text) {
        if (text.isBlank()) {
            throw new IllegalArgumentException("expected a non-empty value");
        }
        return text.trim();
    }

    private static final Pattern IPV4 = Pattern.compile("[0-9.]+");
    private static final Pattern IPV4_VALID = Pattern.compile(
            "((25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])(\\.(?!$)|$)){4}");
    private static final Pattern IPV6 = Pattern.compile("[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*"
            + "(%[A-Za-z0-9_.-]+)?");
    private static final Pattern HOST_LABEL = Pattern.compile(
            "[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?");

    /**
     * The address {@code serve} listens on, checked by its syntax alone, so that a typo fails at
     * load rather than as a DNS lookup at bind: an IPv4 address in dotted-quad form (no leading
     * zeros), an IPv6 address, or a host name as RFC 1123 writes one.
     */
    static String bind(String text) {
        String s = text(text);
        if (IPV4.matcher(s).matches()) {
            if (!IPV4_VALID.matcher(s).matches()) {
                throw new IllegalArgumentException("expected an IPv4 address as four numbers "
                        + "from 0 to 255 separated by dots, such as 127.0.0.1");
            }
            return s;
        }
        if (s.contains(":")) {
            // Hex digits and colons only: InetAddress then parses a literal and never asks DNS.
            if (!IPV6.matcher(s).matches() || !isAddress(s)) {
                throw new IllegalArgumentException("expected an IPv6 address, such as ::1");
            }
            return s;
        }
        String name = s.endsWith(".") ? s.substring(0, s.length() - 1) : s;
        if (name.isEmpty() || name.length() > 253 || !java.util.Arrays.stream(name.split("\\.", -1))
                .allMatch(label -> HOST_LABEL.matcher(label).matches())) {
            throw new IllegalArgumentException("expected an IP address (such as 127.0.0.1 or ::1) "
                    + "or a host name (letters, digits and hyphens in dot-separated labels, such "
                    + "as localhost)");
        }
        return s;
    }

    private static boolean isAddress(String literal) {
        try {
            java.net.InetAddress.getByName(literal);
            return true;
        } catch (java.net.UnknownHostException e) {
            return false;
        }
    }

    /**
     * {@code off}, {@code on}, or a file the access log can be appended to: checked now (the
     * file, or its directory when it does not exist yet), so that a wrong path fails at load.
     */
    static String accessLog(String text) {
        String s = text(text);
        if (s.equals("off") || s.equals("on")) {
            return s;
        }
        Path file = Path.of(s).toAbsolutePath();
        if (Files.isDirectory(file)) {
            throw new IllegalArgumentException("is a directory; expected off, on or a file");
        }
        if (Files.exists(file)) {
            if (!Files.isRegularFile(file) || !Files.isWritable(file)) {
                throw new IllegalArgumentException("the file cannot be appended to (not a "
                        + "regular file, or permissions)");
            }
            return s;
        }
        Path parent = file.getParent();
        if (parent == null || !Files.isDirectory(parent)) {
            throw new IllegalArgumentException("its directory " + parent + " does not exist");
        }
        if (!Files.isWritable(parent)) {
            throw new IllegalArgumentException("the file cannot be created: its directory "
                    + parent + " cannot be written (permissions)");
        }
        return s;
    }

    /** A file that exists and can be read (checked now, read where it is used). */
    static Path readableFile(String text) {
        Path path = Path.of(text(text));
        if (!Files.isRegularFile(path)) {
            throw new IllegalArgumentException(Files.exists(path) ? "not a regular file"
                    : "no such file");
        }
        if (!Files.isReadable(path)) {
            throw new IllegalArgumentException("the file cannot be read (permissions)");
        }
        return path;
    }

    /**
     * One warning per {@code IDMINT_} environment variable that names no key, with the nearest
     * one that does: a misspelled variable would otherwise be ignored without a word. (An
     * unknown key in the config file is an error instead: the file holds nothing else.)
     *
     * @param known every variable idmint reads
     */
    static java.util.List<String> envWarnings(java.util.List<String> known,
            Map<String, String> env) {
        java.util.List<String> warnings = new java.util.ArrayList<>();
        for (String name : new java.util.TreeSet<>(env.keySet())) {
            if (name.startsWith("IDMINT_") && !known.contains(name)) {
                String nearest = known.stream()
                        .min(java.util.Comparator.comparingInt(k -> distance(name, k)))
                        .orElseThrow();
                warnings.add("environment variable " + name + " is not an idmint setting and is "
                        + "ignored; did you mean " + nearest + "?");
            }
        }
        return java.util.List.copyOf(warnings);
    }

    /** A codes key as hex: checked here, turned into bytes where codes are built. */
    static String codesKey(String text) {
        io.idmint.codes.Keys.fromHex(text);
        return text.strip();
    }

    /** A 128-bit flake worker: a whole number below 2^48, or a MAC address. */
    static long flakeWorker(String text) {
        String s = text.trim();
        if (MAC.matcher(s).matches()) {
            return Long.parseLong(s.replace(":", "").replace("-", ""), 16);
        }
        return number(s, 0, Flake128.MAX_WORKER_ID, "a whole number from 0 to "
                + Flake128.MAX_WORKER_ID + " (48 bits) or a MAC address such as "
                + "02:42:ac:11:00:02");
    }

    /**
     * The edit distance between two names (for "did you mean"): letters inserted, deleted or
     * replaced.
     */
    static int distance(String a, String b) {
        int[] row = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            row[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            int diagonal = row[0];
            row[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int above = row[j];
                row[j] = Math.min(Math.min(row[j] + 1, row[j - 1] + 1),
                        diagonal + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1));
                diagonal = above;
            }
        }
        return row[b.length()];
    }
}

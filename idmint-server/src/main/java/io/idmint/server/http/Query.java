package io.idmint.server.http;

import io.idmint.server.api.ApiException;
import io.idmint.server.api.Problem;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

/**
 * Reads the query string of a request, strictly: every route takes a few named parameters, and
 * an unknown, repeated or badly encoded parameter is an error naming it (an
 * {@link ApiException}, BAD_PARAMETER), never ignored.
 */
final class Query {

    private Query() {
    }

    /**
     * The value of {@code name}, or null when the query does not have it. The hot path (a bulk
     * request's {@code count}): it allocates nothing but the value.
     *
     * @param raw the raw query string (after {@code ?}), or null when the URI has none
     * @throws ApiException BAD_PARAMETER on another parameter, a repeated one, or bad encoding
     */
    static String param(String raw, String name) {
        return raw == null || raw.isEmpty() ? null : read(raw, name, null, null);
    }

    /**
     * The values of the parameters given, by name (absent ones are not in the map).
     *
     * @param names the parameters the endpoint takes
     * @throws ApiException BAD_PARAMETER on another parameter, a repeated one, or bad encoding
     */
    static Map<String, String> params(String raw, String... names) {
        if (raw == null || raw.isEmpty()) {
            return Map.of();
        }
        Map<String, String> values = new HashMap<>(4);
        read(raw, null, names, values);
        return values;
    }

    /**
     * Reads every parameter of {@code raw}: with {@code one}, the only one it may have, returns
     * its value; else puts each of {@code names} it has into {@code values}.
     */
    private static String read(String raw, String one, String[] names,
            Map<String, String> values) {
        String found = null;
        int start = 0;
        while (start <= raw.length()) {
            int end = raw.indexOf('&', start);
            if (end < 0) {
                end = raw.length();
            }
            if (end > start) {
                int eq = raw.indexOf('=', start);
                boolean hasValue = eq >= 0 && eq < end;
                int keyEnd = hasValue ? eq : end;
                String key = one != null ? (isKey(raw, start, keyEnd, one) ? one : null)
                        : keyOf(raw, start, keyEnd, names);
                if (key == null) {
                    throw new ApiException(Problem.BAD_PARAMETER, "unknown query parameter '"
                            + decode(raw.substring(start, keyEnd)) + "'; this endpoint takes "
                            + "only " + (one != null ? one : String.join(" and ", names)));
                }
                String value = hasValue ? decode(raw.substring(eq + 1, end)) : "";
                if (one != null ? found != null : values.put(key, value) != null) {
                    throw new ApiException(Problem.BAD_PARAMETER, "query parameter " + key
                            + " is given more than once");
                }
                found = value;
            }
            start = end + 1;
        }
        return found;
    }

    /** Which of {@code names} the key {@code raw[from, to)} is, or null. */
    private static String keyOf(String raw, int from, int to, String[] names) {
        for (String name : names) {
            if (isKey(raw, from, to, name)) {
                return name;
            }
        }
        return null;
    }

    /** Whether the key {@code raw[from, to)} is {@code name}, compared in place unless encoded. */
    private static boolean isKey(String raw, int from, int to, String name) {
        if (to - from == name.length() && raw.regionMatches(from, name, 0, name.length())) {
            return true;
        }
        for (int i = from; i < to; i++) {
            char c = raw.charAt(i);
            if (c == '%' || c == '+') {
                return name.equals(decode(raw.substring(from, to)));
            }
        }
        return false;
    }

    /**
     * Checks that there are no parameters.
     *
     * @throws ApiException BAD_PARAMETER naming the first one
     */
    static void none(String raw) {
        if (raw == null) {
            return;
        }
        int start = 0;
        while (start < raw.length() && raw.charAt(start) == '&') {
            start++;
        }
        if (start < raw.length()) {
            int end = raw.indexOf('&', start);
            String first = raw.substring(start, end < 0 ? raw.length() : end);
            int eq = first.indexOf('=');
            throw new ApiException(Problem.BAD_PARAMETER, "unknown query parameter '"
                    + decode(eq < 0 ? first : first.substring(0, eq))
                    + "'; this endpoint takes no parameters");
        }
    }

    /** Percent-decodes a path segment: unlike in a query, {@code +} is itself there. */
    static String decodePath(String s) {
        return s.indexOf('%') < 0 ? s : decode(s.replace("+", "%2B"));
    }

    /** Percent-decodes a query part, only when there is something to decode. */
    static String decode(String s) {
        if (s.indexOf('%') < 0 && s.indexOf('+') < 0) {
            return s;
        }
        try {
            return URLDecoder.decode(s, StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            throw new ApiException(Problem.BAD_PARAMETER, "bad percent-encoding in '" + s + "'");
        }
    }
}

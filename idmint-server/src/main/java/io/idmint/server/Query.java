package io.idmint.server;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
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
     * The value of {@code name}, or null when the query does not have it.
     *
     * @param raw the raw query string (after {@code ?}), or null when the URI has none
     * @throws ApiException BAD_PARAMETER on another parameter, a repeated one, or bad encoding
     */
    static String param(String raw, String name) {
        return params(raw, name).get(name);
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
        int start = 0;
        while (start <= raw.length()) {
            int end = raw.indexOf('&', start);
            if (end < 0) {
                end = raw.length();
            }
            if (end > start) {
                int eq = raw.indexOf('=', start);
                boolean hasValue = eq >= 0 && eq < end;
                String key = decode(raw.substring(start, hasValue ? eq : end));
                if (!List.of(names).contains(key)) {
                    throw new ApiException(Problem.BAD_PARAMETER, "unknown query parameter '" + key
                            + "'; this endpoint takes only " + String.join(" and ", names));
                }
                if (values.put(key, hasValue ? decode(raw.substring(eq + 1, end)) : "") != null) {
                    throw new ApiException(Problem.BAD_PARAMETER, "query parameter " + key
                            + " is given more than once");
                }
            }
            start = end + 1;
        }
        return values;
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

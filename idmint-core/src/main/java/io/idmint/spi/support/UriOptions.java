package io.idmint.spi.support;

import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;

/**
 * The query options of a backend URI, {@code ?name=value&name=value}: one reading for every
 * backend that takes them, so they all refuse the same mistakes with the same words.
 */
public final class UriOptions {

    private UriOptions() {
    }

    /**
     * The options of {@code query} by name (lower case): each known, with a value, and given
     * once. A {@code password} option is refused: a password goes in a file or an environment
     * variable (see {@link Passwords}).
     *
     * @param query the part after {@code ?}, or empty
     * @param known the option names, in the order the message lists them
     * @param bad makes the exception for what is wrong, e.g. by prefixing the URI
     * @throws IllegalArgumentException from {@code bad} for the first bad option
     */
    public static Map<String, String> parse(String query, List<String> known,
            Function<String, IllegalArgumentException> bad) {
        Map<String, String> out = new HashMap<>();
        if (query == null || query.isEmpty()) {
            return out;
        }
        for (String param : query.split("&", -1)) {
            int eq = param.indexOf('=');
            String name = (eq < 0 ? param : param.substring(0, eq)).toLowerCase(Locale.ROOT);
            if (name.equals("password")) {
                throw bad.apply("a password goes in a file (password-file=) or an environment "
                        + "variable (password-env=), not in the URI");
            }
            if (!known.contains(name)) {
                throw bad.apply("unknown option '" + name + "'; known: "
                        + String.join(", ", known));
            }
            if (eq < 0 || eq == param.length() - 1) {
                throw bad.apply("option '" + name + "' has no value");
            }
            if (out.put(name, param.substring(eq + 1)) != null) {
                throw bad.apply("option '" + name + "' is given twice");
            }
        }
        return out;
    }
}

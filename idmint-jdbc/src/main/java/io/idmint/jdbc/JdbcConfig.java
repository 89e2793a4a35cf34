package io.idmint.jdbc;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A registry URL taken apart: the JDBC URL handed to the driver, minus this backend's own
 * {@code idmint.*} options, plus credentials from the environment when the URL has none.
 *
 * @param dialect the database family
 * @param driverUrl the URL the driver sees
 * @param display the URL without query, options or credentials, for messages
 * @param timeout bound on getting a connection and on each statement
 * @param poolSize connections per registry client
 * @param user from {@code IDMINT_JDBC_USER}, or null to use the URL's
 * @param password from {@code IDMINT_JDBC_PASSWORD}, or null to use the URL's
 */
record JdbcConfig(Dialect dialect, String driverUrl, String display, Duration timeout,
        int poolSize, String user, String password) {

    static final String USER_ENV = "IDMINT_JDBC_USER";
    static final String PASSWORD_ENV = "IDMINT_JDBC_PASSWORD";
    static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(2);
    static final int DEFAULT_POOL_SIZE = 2;

    private static final Pattern DURATION = Pattern.compile("(\\d{1,9})(ms|s|m)?");

    /**
     * Parses a registry URL such as
     * {@code jdbc:postgresql://db:5432/ids?user=idmint&idmint.timeout=3s} or
     * {@code jdbc:h2:./ids;idmint.pool-size=1}.
     *
     * @throws IllegalArgumentException naming the bad part
     */
    static JdbcConfig parse(String url, Map<String, String> env) {
        if (url == null || url.isBlank()) {
            throw new IllegalArgumentException("jdbc registry: the URL is empty");
        }
        String trimmed = url.trim();
        Dialect dialect = Dialect.of(trimmed);
        if (dialect == null) {
            throw new IllegalArgumentException("jdbc registry '" + displayOf(trimmed) + "': "
                    + "unsupported database; use jdbc:postgresql://…, jdbc:mysql://…, "
                    + "jdbc:mariadb://… or jdbc:h2:…");
        }
        // H2 separates settings with ';', the others use a '?…&…' query.
        char sep = dialect == Dialect.H2 ? ';' : '&';
        int start = dialect == Dialect.H2 ? trimmed.indexOf(';') : trimmed.indexOf('?');
        String base = start < 0 ? trimmed : trimmed.substring(0, start);
        List<String> kept = new ArrayList<>();
        Duration timeout = DEFAULT_TIMEOUT;
        int poolSize = DEFAULT_POOL_SIZE;
        if (start >= 0) {
            String params = trimmed.substring(start + 1);
            for (String param : params.split(Pattern.quote(String.valueOf(sep)))) {
                if (!param.toLowerCase(Locale.ROOT).startsWith("idmint.")) {
                    if (!param.isEmpty()) {
                        kept.add(param);
                    }
                    continue;
                }
                int eq = param.indexOf('=');
                String key = eq < 0 ? param : param.substring(0, eq);
                String value = eq < 0 ? "" : param.substring(eq + 1);
                switch (key) {
                    case "idmint.timeout":
                        timeout = parseTimeout(value);
                        break;
                    case "idmint.pool-size":
                        poolSize = parsePoolSize(value);
                        break;
                    default:
                        throw new IllegalArgumentException("jdbc registry '" + displayOf(trimmed)
                                + "': unknown option '" + key + "'; known: idmint.timeout, "
                                + "idmint.pool-size");
                }
            }
        }
        String driverUrl = kept.isEmpty() ? base : base + (dialect == Dialect.H2 ? ";" : "?")
                + String.join(String.valueOf(sep), kept);
        return new JdbcConfig(dialect, driverUrl, displayOf(trimmed), timeout, poolSize,
                nonEmpty(env.get(USER_ENV)), nonEmpty(env.get(PASSWORD_ENV)));
    }

    /** Whether the driver URL already sets a driver property (so a default must not override). */
    boolean urlSets(String property) {
        return Pattern.compile("[?&;]" + Pattern.quote(property) + "=", Pattern.CASE_INSENSITIVE)
                .matcher(driverUrl).find();
    }

    private static Duration parseTimeout(String value) {
        Matcher m = DURATION.matcher(value.trim());
        if (!m.matches()) {
            throw new IllegalArgumentException("jdbc registry: idmint.timeout '" + value
                    + "' is not a duration such as 500ms, 2s or 1m");
        }
        long n = Long.parseLong(m.group(1));
        String unit = m.group(2) == null ? "ms" : m.group(2);
        Duration d = unit.equals("m") ? Duration.ofMinutes(n)
                : unit.equals("s") ? Duration.ofSeconds(n) : Duration.ofMillis(n);
        if (d.toMillis() < 250 || d.compareTo(Duration.ofMinutes(1)) > 0) {
            throw new IllegalArgumentException("jdbc registry: idmint.timeout '" + value
                    + "' must be between 250ms and 1m");
        }
        return d;
    }

    private static int parsePoolSize(String value) {
        try {
            int n = Integer.parseInt(value.trim());
            if (n >= 1 && n <= 16) {
                return n;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException("jdbc registry: idmint.pool-size '" + value
                + "' must be a whole number from 1 to 16");
    }

    /** The URL without query, settings or user:password@, so messages never leak secrets. */
    static String displayOf(String url) {
        String s = url;
        int q = s.indexOf('?');
        if (q >= 0) {
            s = s.substring(0, q);
        }
        int semi = s.indexOf(';');
        if (semi >= 0) {
            s = s.substring(0, semi);
        }
        return s.replaceAll("//[^/@]*@", "//");
    }

    /** Never prints the URL's query or the password. */
    @Override
    public String toString() {
        return "JdbcConfig[" + display + ", timeout=" + timeout + ", pool-size=" + poolSize + "]";
    }

    private static String nonEmpty(String s) {
        return s == null || s.isEmpty() ? null : s;
    }
}

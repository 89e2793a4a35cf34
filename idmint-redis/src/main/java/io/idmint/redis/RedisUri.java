package io.idmint.redis;

import io.idmint.spi.support.Durations;
import io.idmint.spi.support.Names;
import io.idmint.spi.support.Providers;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A parsed range store URI: {@code redis[s]://[[user]:password@]host[:port][/namespace]} with
 * the options {@code ?timeout=2s&persistence=checked}, in any order, each at most once:
 *
 * <ul>
 *   <li>{@code rediss}: TLS, with the JVM's trust store and host name verification;
 *   <li>{@code user:password@} or {@code :password@}: Redis ACL user (default {@code default})
 *       and password, percent-encoded where they hold reserved characters;
 *   <li>host: a name, an IPv4 address or {@code [IPv6]}; the port defaults to 6379;
 *   <li>namespace: the first part of every key ({@code <namespace>:segments:<tag>}), default
 *       {@code idmint}; 1 to 64 of {@code A-Z a-z 0-9 . _ -}, not all digits (a Redis database
 *       number is not supported: the store always uses database 0);
 *   <li>{@code timeout}: how long connecting and each command may take before the call counts
 *       as UNAVAILABLE, {@code 100ms} to {@code 60s}, written {@code 500ms}, {@code 2s} or
 *       {@code 1m}; default 2s;
 *   <li>{@code persistence}: {@code checked} (the default) makes the store refuse a server
 *       that may forget allocations on restart (see {@link PersistenceCheck});
 *       {@code unchecked} skips that check, and a server without {@code appendonly yes} and
 *       {@code appendfsync always} may then hand out the same IDs again after a restart.
 * </ul>
 *
 * @param host a name or address, IPv6 without brackets
 * @param user the ACL user, or null for the default user
 * @param password the password, or null for none
 * @param checkPersistence whether the store refuses a server that may forget allocations
 */
record RedisUri(boolean tls, String user, String password, String host, int port,
        String namespace, Duration timeout, boolean checkPersistence) {

    static final int DEFAULT_PORT = 6379;
    static final String DEFAULT_NAMESPACE = "idmint";
    static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(2);

    /** The query options, in the order error messages list them. */
    private static final List<String> OPTIONS = List.of("timeout", "persistence");

    /**
     * Parses a range store URI.
     *
     * @throws IllegalArgumentException naming the part of the URI that is wrong; a password in
     *     it is not repeated
     */
    static RedisUri parse(String uri) {
        if (uri == null) {
            throw bad(uri, "is missing");
        }
        URI u;
        try {
            u = new URI(uri);
        } catch (URISyntaxException e) {
            throw bad(uri, "is malformed: " + e.getReason() + " at index " + e.getIndex());
        }
        String scheme = u.getScheme() == null ? "" : u.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("redis") && !scheme.equals("rediss")) {
            throw bad(uri, "must start with redis:// or rediss://");
        }
        if (u.getHost() == null) {
            throw bad(uri, "names no host, or a bad one; write redis://host:6379/namespace");
        }
        if (u.getFragment() != null) {
            throw bad(uri, "has a fragment '#" + u.getRawFragment() + "'; remove it");
        }
        String user = null;
        String password = null;
        if (u.getUserInfo() != null) {
            int colon = u.getUserInfo().indexOf(':');
            if (colon < 0) {
                throw bad(uri, "has user information without a password; write user:password@ "
                        + "or :password@");
            }
            user = colon == 0 ? null : u.getUserInfo().substring(0, colon);
            password = u.getUserInfo().substring(colon + 1);
        }
        int port = u.getPort() < 0 ? DEFAULT_PORT : u.getPort();
        if (port < 1 || port > 65_535) {
            throw bad(uri, "has port " + port + "; it must be 1 to 65535");
        }
        String host = u.getHost().startsWith("[")
                ? u.getHost().substring(1, u.getHost().length() - 1) : u.getHost();
        Map<String, String> options = options(uri, u.getRawQuery());
        String timeout = options.get("timeout");
        return new RedisUri(scheme.equals("rediss"), user, password, host, port,
                namespace(uri, u.getPath()),
                timeout == null ? DEFAULT_TIMEOUT : duration(uri, timeout),
                checkPersistence(uri, options.getOrDefault("persistence", "checked")));
    }

    private static String namespace(String uri, String path) {
        String p = path == null ? "" : path;
        if (p.startsWith("/")) {
            p = p.substring(1);
        }
        if (p.endsWith("/")) {
            p = p.substring(0, p.length() - 1);
        }
        if (p.isEmpty()) {
            return DEFAULT_NAMESPACE;
        }
        if (!Names.isValid(p)) {
            throw bad(uri, "has a bad namespace '" + p + "'; use " + Names.RULE);
        }
        if (p.chars().allMatch(Character::isDigit)) {
            throw bad(uri, "has namespace '" + p + "', which reads like a Redis database "
                    + "number; the path names the key namespace here, and database 0 is used");
        }
        return p;
    }

    /** The query's options by name, each known and set once. */
    private static Map<String, String> options(String uri, String query) {
        Map<String, String> options = new HashMap<>();
        if (query == null || query.isEmpty()) {
            return options;
        }
        for (String param : query.split("&", -1)) {
            int eq = param.indexOf('=');
            String name = eq < 0 ? param : param.substring(0, eq);
            if (!OPTIONS.contains(name)) {
                throw bad(uri, "has an unknown option '" + name + "'; known: "
                        + String.join(", ", OPTIONS));
            }
            if (options.put(name, eq < 0 ? "" : param.substring(eq + 1)) != null) {
                throw bad(uri, "sets " + name + " twice");
            }
        }
        return options;
    }

    private static boolean checkPersistence(String uri, String value) {
        return switch (value.toLowerCase(Locale.ROOT)) {
            case "checked" -> true;
            case "unchecked" -> false;
            default -> throw bad(uri, "has persistence '" + value + "'; write checked (the "
                    + "default) or unchecked");
        };
    }

    private static Duration duration(String uri, String value) {
        try {
            return Durations.parse(value, Duration.ofMillis(100), Duration.ofSeconds(60));
        } catch (IllegalArgumentException e) {
            throw bad(uri, "has timeout " + e.getMessage());
        }
    }


    private static IllegalArgumentException bad(String uri, String why) {
        return new IllegalArgumentException("Redis URI '" + Providers.redact(uri) + "' " + why);
    }

    /** The URI without credentials, for messages. */
    @Override
    public String toString() {
        return (tls ? "rediss://" : "redis://") + (host.contains(":") ? "[" + host + "]" : host)
                + ":" + port + "/" + namespace;
    }
}

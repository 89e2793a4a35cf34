package io.idmint.etcd;

import io.idmint.spi.Durations;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A parsed etcd URI, of the worker registry or the segment range store:
 * {@code etcd://host:port[,host:port…][/key/prefix][?timeout=2s]}.
 *
 * <ul>
 *   <li>hosts: names, IPv4 addresses or {@code [IPv6]}; the port defaults to 2379;
 *   <li>path: the key prefix everything is stored under, default {@code /idmint}; letters,
 *       digits and {@code . _ -} between slashes;
 *   <li>{@code timeout}: how long each etcd call may take before it counts as UNAVAILABLE,
 *       {@code 100ms} to {@code 60s}, written {@code 500ms}, {@code 2s} or {@code 1m}; default 2s.
 * </ul>
 *
 * @param endpoints {@code http://host:port} for each member
 * @param prefix the key prefix, starting with {@code /} and without a trailing one
 * @param timeout the per-call timeout
 */
record EtcdUri(List<String> endpoints, String prefix, Duration timeout) {

    static final int DEFAULT_PORT = 2379;
    static final String DEFAULT_PREFIX = "/idmint";
    static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(2);

    private static final Pattern HOST = Pattern.compile(
            "(\\[[0-9A-Fa-f:.]+\\]|[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?)(:(\\d{1,5}))?");
    private static final Pattern PREFIX = Pattern.compile("(/[A-Za-z0-9._-]+)+");

    EtcdUri {
        endpoints = List.copyOf(endpoints);
    }

    /**
     * Parses an etcd URI.
     *
     * @throws IllegalArgumentException naming the part of the URI that is wrong
     */
    static EtcdUri parse(String uri) {
        if (uri == null || !uri.regionMatches(true, 0, "etcd://", 0, 7)) {
            throw bad(uri, "must start with etcd://");
        }
        String rest = uri.substring(7);
        int q = rest.indexOf('?');
        String query = q < 0 ? "" : rest.substring(q + 1);
        String beforeQuery = q < 0 ? rest : rest.substring(0, q);
        int slash = beforeQuery.indexOf('/');
        String hosts = slash < 0 ? beforeQuery : beforeQuery.substring(0, slash);
        String path = slash < 0 ? "" : beforeQuery.substring(slash);
        return new EtcdUri(endpoints(uri, hosts), prefix(uri, path), timeout(uri, query));
    }

    private static List<String> endpoints(String uri, String hosts) {
        if (hosts.isEmpty()) {
            throw bad(uri, "names no host; write etcd://host:2379[,host:2379…]/prefix");
        }
        List<String> out = new ArrayList<>();
        for (String h : hosts.split(",", -1)) {
            Matcher m = HOST.matcher(h);
            if (!m.matches()) {
                throw bad(uri, "has a bad host '" + h + "'; write host:port");
            }
            int port = m.group(4) == null ? DEFAULT_PORT : Integer.parseInt(m.group(4));
            if (port < 1 || port > 65_535) {
                throw bad(uri, "has a bad port in '" + h + "'");
            }
            out.add("http://" + m.group(1) + ":" + port);
        }
        return out;
    }

    private static String prefix(String uri, String path) {
        String p = path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
        if (p.isEmpty()) {
            return DEFAULT_PREFIX;
        }
        if (!PREFIX.matcher(p).matches()) {
            throw bad(uri, "has a bad key prefix '" + path + "'; use letters, digits and . _ - "
                    + "between slashes");
        }
        return p;
    }

    private static Duration timeout(String uri, String query) {
        Duration timeout = null;
        if (query.isEmpty()) {
            return DEFAULT_TIMEOUT;
        }
        for (String param : query.split("&", -1)) {
            int eq = param.indexOf('=');
            String name = eq < 0 ? param : param.substring(0, eq);
            String value = eq < 0 ? "" : param.substring(eq + 1);
            if (!name.equals("timeout")) {
                throw bad(uri, "has an unknown option '" + name + "'; known: timeout");
            }
            if (timeout != null) {
                throw bad(uri, "sets timeout twice");
            }
            timeout = duration(uri, value);
        }
        return timeout;
    }

    private static Duration duration(String uri, String value) {
        try {
            return Durations.parse(value, Duration.ofMillis(100), Duration.ofSeconds(60));
        } catch (IllegalArgumentException e) {
            throw bad(uri, "has timeout " + e.getMessage());
        }
    }

    private static IllegalArgumentException bad(String uri, String why) {
        return new IllegalArgumentException("etcd URI '" + uri + "' " + why);
    }
}

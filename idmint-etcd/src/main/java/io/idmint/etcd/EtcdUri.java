package io.idmint.etcd;

import io.idmint.spi.support.Durations;
import io.idmint.spi.support.Providers;
import io.idmint.spi.support.UriOptions;
import io.idmint.spi.support.UriSecurity;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A parsed etcd URI, of the worker registry or the segment range store:
 * {@code etcd[s]://host:port[,host:port…][/key/prefix][?option=value&…]}.
 *
 * <ul>
 *   <li>{@code etcds://}: TLS to every member; {@code etcd://}: plain text;
 *   <li>hosts: names, IPv4 addresses or {@code [IPv6]}; the port defaults to 2379;
 *   <li>path: the key prefix everything is stored under, default {@code /idmint}; letters,
 *       digits and {@code . _ -} between slashes;
 *   <li>{@code timeout}: how long each etcd call may take before it counts as UNAVAILABLE,
 *       {@code 100ms} to {@code 60s}, written {@code 500ms}, {@code 2s} or {@code 1m}; default 2s;
 *   <li>{@code ca-file}: PEM certificates that sign the members' certificates (default: the
 *       JVM's trusted authorities); {@code cert-file} and {@code key-file}: a PEM client
 *       certificate and its PKCS#8 PEM key, for etcd's {@code --client-cert-auth} (TLS only);
 *   <li>{@code user} with {@code password-file} (a file holding the password) or
 *       {@code password-env} (the name of an environment variable holding it): etcd's user
 *       authentication. The password itself is never part of the URI, so the URI can be shown.
 * </ul>
 *
 * @param endpoints {@code http://host:port} (or {@code https://}) for each member
 * @param prefix the key prefix, starting with {@code /} and without a trailing one
 * @param timeout the per-call timeout
 * @param security TLS ({@code etcds://}), its files, and the etcd user
 */
record EtcdUri(List<String> endpoints, String prefix, Duration timeout, UriSecurity security) {

    static final int DEFAULT_PORT = 2379;
    static final String DEFAULT_PREFIX = "/idmint";
    static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(2);

    private static final Pattern HOST = Pattern.compile(
            "(\\[[0-9A-Fa-f:.]+\\]|[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?)(:(\\d{1,5}))?");
    private static final Pattern PREFIX = Pattern.compile("(/[A-Za-z0-9._-]+)+");
    private static final List<String> OPTIONS = Stream.concat(Stream.of("timeout"),
            UriSecurity.OPTIONS.stream()).toList();

    EtcdUri {
        endpoints = List.copyOf(endpoints);
    }

    /**
     * Parses an etcd URI.
     *
     * @throws IllegalArgumentException naming the part of the URI that is wrong (never quoting a
     *     password written into it by mistake)
     */
    static EtcdUri parse(String uri) {
        boolean tls = uri != null && uri.regionMatches(true, 0, "etcds://", 0, 8);
        if (uri == null || !tls && !uri.regionMatches(true, 0, "etcd://", 0, 7)) {
            throw bad(uri, "must start with etcd:// or etcds:// (TLS)");
        }
        String rest = uri.substring(tls ? 8 : 7);
        int q = rest.indexOf('?');
        String beforeQuery = q < 0 ? rest : rest.substring(0, q);
        int slash = beforeQuery.indexOf('/');
        String hosts = slash < 0 ? beforeQuery : beforeQuery.substring(0, slash);
        String path = slash < 0 ? "" : beforeQuery.substring(slash);
        Map<String, String> o = UriOptions.parse(q < 0 ? "" : rest.substring(q + 1), OPTIONS,
                why -> bad(uri, why));
        String timeout = o.get("timeout");
        EtcdUri parsed = new EtcdUri(endpoints(uri, hosts, tls), prefix(uri, path),
                timeout == null ? DEFAULT_TIMEOUT : duration(uri, timeout), UriSecurity.of(tls, o));
        parsed.check(uri);
        return parsed;
    }

    /** The URI as it may be shown: scheme, members, prefix and user; no file names. */
    @Override
    public String toString() {
        String s = (tls() ? "etcds://" : "etcd://") + String.join(",", endpoints.stream()
                .map(e -> e.substring(e.indexOf("//") + 2)).toList()) + prefix;
        return security.user() == null ? s : s + " (user " + security.user() + ")";
    }

    /** Whether the members are reached over TLS. */
    boolean tls() {
        return security.tls();
    }

    /**
     * The user's password, read now from its file or environment variable.
     *
     * @throws IllegalArgumentException when it cannot be read or is empty
     */
    byte[] password() {
        return security.password("etcd " + this);
    }

    private void check(String uri) {
        security.check("etcds", why -> bad(uri, why));
        if (security.user() == null && security.hasPassword()) {
            throw bad(uri, "sets a password without user=");
        }
        if (security.user() != null && !security.hasPassword()) {
            throw bad(uri, "sets user=" + security.user()
                    + " without password-file= or password-env=");
        }
    }

    private static List<String> endpoints(String uri, String hosts, boolean tls) {
        if (hosts.isEmpty()) {
            throw bad(uri, "names no host; write etcd://host:2379[,host:2379…]/prefix");
        }
        if (hosts.contains("@")) {
            throw bad(uri, "has user information; write ?user=NAME&password-file=FILE "
                    + "(or password-env=VARIABLE): a password never goes into the URI");
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
            out.add((tls ? "https://" : "http://") + m.group(1) + ":" + port);
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

    private static Duration duration(String uri, String value) {
        try {
            return Durations.parse(value, Duration.ofMillis(100), Duration.ofSeconds(60));
        } catch (IllegalArgumentException e) {
            throw bad(uri, "has timeout " + e.getMessage());
        }
    }


    private static IllegalArgumentException bad(String uri, String why) {
        return new IllegalArgumentException("etcd URI '" + Providers.redact(uri) + "': " + why);
    }
}

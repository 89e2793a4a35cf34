package io.idmint.zookeeper;

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
 * A parsed {@code zk:} URI, of the worker registry or the segment range store:
 * {@code zk[s]://host:port[,host:port…][/chroot][?timeout=5s&session=30s&…]}.
 *
 * <ul>
 *   <li>{@code zks://}: TLS to the ensemble's secure client port (ZooKeeper's Netty client);
 *       {@code ca-file}: PEM certificates that sign the servers' certificates (default: the
 *       JVM's trusted authorities); {@code cert-file} and {@code key-file}: a PEM client
 *       certificate and its PKCS#8 PEM key, for servers that demand one.</li>
 *   <li>{@code auth=digest} with {@code user} and {@code password-file} (a file holding the
 *       password) or {@code password-env} (an environment variable holding it): the session
 *       authenticates as that digest user, and every znode idmint creates under the chroot lets
 *       only that user write it (anyone may read it). The password is never part of the URI.</li>
 *   <li>hosts: the ensemble, as ZooKeeper's connect string; the port defaults to 2181.</li>
 *   <li>chroot: the znode under which every namespace lives; default {@code /idmint}. Segments
 *       are {@code A-Z a-z 0-9 . _ -}, and the chroot cannot be {@code /} or under
 *       {@code /zookeeper}.</li>
 *   <li>{@code timeout}: how long one registry call waits for a connection or an answer before it
 *       fails as UNAVAILABLE (Curator's connection timeout and the ZooKeeper client's request
 *       timeout); default 5 s. A call made while the connection is suspended fails at once.</li>
 *   <li>{@code session}: the ZooKeeper session timeout, i.e. how long a crashed holder keeps its
 *       worker ID; default the lease TTL of the first claim (30 s when the first call is a list).
 *       The server clamps it to its {@code minSessionTimeout..maxSessionTimeout} (by default
 *       2..20 ticks, 4..40 s with ZooKeeper's usual {@code tickTime=2000}).</li>
 *   <li>{@code leaf-name}: of the worker registry only: the {@code leaf.name} of a Meituan Leaf
 *       deployment on the same ensemble, whose worker IDs idmint then shares without overlap
 *       ({@link LeafWorkers}).</li>
 * </ul>
 *
 * Durations are a whole number with {@code ms}, {@code s} or {@code m}.
 *
 * @param connectString the ensemble, {@code host:port,host:port}
 * @param chroot the base znode, e.g. {@code /idmint}
 * @param timeoutMillis the per-call timeout
 * @param sessionMillis the session timeout, or 0 for the lease TTL of the first claim
 * @param leafName the Leaf deployment whose worker IDs are shared, or null
 * @param security TLS ({@code zks://}), its files, and the digest user (null for no
 *     authentication)
 */
record ZkUri(String connectString, String chroot, int timeoutMillis, int sessionMillis,
        String leafName, UriSecurity security) {

    static final String DEFAULT_CHROOT = "/idmint";
    static final int DEFAULT_TIMEOUT_MILLIS = 5_000;
    private static final Pattern SEGMENT = Pattern.compile("[A-Za-z0-9._-]+");
    private static final Pattern HOST =
            Pattern.compile("([A-Za-z0-9.-]+|\\[[0-9A-Fa-f:.]+\\])(?::(\\d{1,5}))?");
    private static final List<String> OPTIONS = Stream.concat(
            Stream.of("timeout", "session", "leaf-name", "auth"), UriSecurity.OPTIONS.stream())
            .toList();

    /**
     * Parses a URI.
     *
     * @throws IllegalArgumentException naming the bad part
     */
    static ZkUri parse(String uri) {
        boolean tls = uri != null && uri.regionMatches(true, 0, "zks://", 0, 6);
        if (uri == null || !tls && !uri.regionMatches(true, 0, "zk://", 0, 5)) {
            throw bad(uri, "must start with zk:// or zks:// (TLS), e.g. "
                    + "zk://127.0.0.1:2181/idmint");
        }
        String rest = uri.substring(tls ? 6 : 5);
        String query = "";
        int q = rest.indexOf('?');
        if (q >= 0) {
            query = rest.substring(q + 1);
            rest = rest.substring(0, q);
        }
        int slash = rest.indexOf('/');
        String hosts = slash >= 0 ? rest.substring(0, slash) : rest;
        String path = slash >= 0 ? rest.substring(slash) : "";
        Map<String, String> options = UriOptions.parse(query, OPTIONS, why -> bad(uri, why));
        String timeout = options.get("timeout");
        String session = options.get("session");
        String leafName = options.get("leaf-name");
        if (leafName != null && !SEGMENT.matcher(leafName).matches()) {
            throw bad(uri, "leaf-name '" + leafName + "' must be A-Z a-z 0-9 . _ - (Leaf's "
                    + "leaf.name)");
        }
        ZkUri parsed = new ZkUri(connectString(uri, hosts), chroot(uri, path),
                timeout == null ? DEFAULT_TIMEOUT_MILLIS : millis(uri, "timeout", timeout),
                session == null ? 0 : millis(uri, "session", session), leafName,
                UriSecurity.of(tls, options));
        parsed.check(uri, options.get("auth"));
        return parsed;
    }

    /** The digest user's password, read now from its file or environment variable. */
    byte[] password() {
        return security.password("ZooKeeper " + this);
    }

    /** Whether the ensemble is reached over TLS. */
    boolean tls() {
        return security.tls();
    }

    private void check(String uri, String auth) {
        security.check("zks", why -> bad(uri, why));
        boolean password = security.hasPassword();
        String user = security.user();
        if (auth != null && !auth.equals("digest")) {
            throw bad(uri, "auth '" + auth + "' is not supported; the one scheme is digest");
        }
        if (auth == null && (user != null || password)) {
            throw bad(uri, "user and password need auth=digest");
        }
        if (auth != null && (user == null || !password)) {
            throw bad(uri, "auth=digest needs user= and password-file= (or password-env=)");
        }
    }

    /** Whether the session timeout follows the first claim's lease TTL. */
    boolean sessionFromLease() {
        return sessionMillis == 0;
    }

    @Override
    public String toString() {
        String s = (tls() ? "zks://" : "zk://") + connectString + chroot;
        String user = security.user();
        return user == null ? s : s + " (user " + user + ")";
    }

    private static String connectString(String uri, String hosts) {
        if (hosts.isEmpty()) {
            throw bad(uri, "names no host; write zk://host:port[,host:port…]/chroot");
        }
        if (hosts.contains("@")) {
            throw bad(uri, "has user information; write ?auth=digest&user=NAME&password-file=FILE"
                    + " (a password never goes into the URI)");
        }
        List<String> out = new ArrayList<>();
        for (String h : hosts.split(",", -1)) {
            Matcher m = HOST.matcher(h.trim());
            if (!m.matches()) {
                throw bad(uri, "host '" + h + "' is not host[:port]");
            }
            int port = m.group(2) == null ? 2181 : Integer.parseInt(m.group(2));
            if (port < 1 || port > 65_535) {
                throw bad(uri, "port " + port + " of host '" + h + "' is not 1..65535");
            }
            out.add(m.group(1) + ":" + port);
        }
        return String.join(",", out);
    }

    private static String chroot(String uri, String path) {
        if (path.isEmpty() || path.equals("/")) {
            return DEFAULT_CHROOT;
        }
        String p = path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
        String[] segments = p.substring(1).split("/", -1);
        for (String s : segments) {
            if (!SEGMENT.matcher(s).matches() || s.equals(".") || s.equals("..")) {
                throw bad(uri, "chroot '" + path + "': segment '" + s + "' must be "
                        + "A-Z a-z 0-9 . _ - (not '.' or '..')");
            }
        }
        if (segments[0].equals("zookeeper")) {
            throw bad(uri, "chroot '" + path + "' is inside ZooKeeper's own /zookeeper tree");
        }
        return p;
    }

    private static int millis(String uri, String key, String value) {
        try {
            return (int) Durations.parse(value, Duration.ofMillis(1), Duration.ofHours(1))
                    .toMillis();
        } catch (IllegalArgumentException e) {
            throw bad(uri, key + " " + e.getMessage());
        }
    }


    private static IllegalArgumentException bad(String uri, String why) {
        return new IllegalArgumentException(
                "ZooKeeper URI '" + Providers.redact(uri) + "': " + why);
    }
}

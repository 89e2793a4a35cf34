package io.idmint.jdbc;

import io.idmint.spi.support.Durations;
import io.idmint.spi.support.Names;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * A registry or segment store URL taken apart: the JDBC URL handed to the driver, minus this
 * backend's own {@code idmint.*} options, plus credentials from the environment when the URL has
 * none. An H2 file path that H2 itself would refuse as implicitly relative ({@code jdbc:h2:ids},
 * {@code jdbc:h2:file:ids}) is resolved under the node's data directory.
 *
 * @param use what the URL is for: the label of messages and the options allowed
 * @param dialect the database family
 * @param driverUrl the URL the driver sees
 * @param display the URL without query, options or credentials, for messages
 * @param timeout bound on getting a connection and on each statement
 * @param poolSize connections per client
 * @param namespace the segment store's namespace ({@code idmint.namespace}); null for a registry,
 *     whose namespace comes with each claim, and for a {@code leaf_alloc} store
 * @param user from {@code IDMINT_JDBC_USER}, or null to use the URL's
 * @param password from {@code IDMINT_JDBC_PASSWORD}, or null to use the URL's
 */
record JdbcConfig(Use use, Dialect dialect, String driverUrl, String display, Duration timeout,
        int poolSize, String namespace, String user, String password) {

    static final String USER_ENV = "IDMINT_JDBC_USER";
    static final String PASSWORD_ENV = "IDMINT_JDBC_PASSWORD";
    static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(2);
    static final int DEFAULT_POOL_SIZE = 2;
    static final String DEFAULT_NAMESPACE = "default";

    /** An H2 URL's database part that names another kind of store (mem:, tcp:, nio:, …). */
    private static final Pattern H2_PREFIX = Pattern.compile("[A-Za-z][A-Za-z0-9]+:.*");

    /** What a URL is for. */
    enum Use {
        REGISTRY("jdbc registry", "schema"),
        SEGMENTS("jdbc segment store", "segments"),
        /** Segments from an existing Leaf table ({@code idmint.table=leaf_alloc}): no schema. */
        LEAF_ALLOC("jdbc segment store (leaf_alloc)", null);

        private final String label;
        private final String script;

        Use(String label, String script) {
            this.label = label;
            this.script = script;
        }

        /** How messages name it, e.g. {@code jdbc registry}. */
        String label() {
            return label;
        }

        /** Its schema script's name before {@code -<dialect>.sql}; null when it creates none. */
        String script() {
            return script;
        }
    }

    /** Parses a registry URL that is not opened through a data directory. */
    static JdbcConfig parse(String url, Map<String, String> env) {
        return parse(Use.REGISTRY, url, env, null);
    }

    /**
     * Parses a URL such as {@code jdbc:postgresql://db:5432/ids?user=idmint&idmint.timeout=3s}
     * or {@code jdbc:h2:./ids;idmint.pool-size=1}.
     *
     * @param dataDir the node's data directory, under which an implicitly relative H2 path is
     *     resolved; null when there is none (such a path is then refused)
     * @throws IllegalArgumentException naming the bad part
     */
    static JdbcConfig parse(Use use, String url, Map<String, String> env, Path dataDir) {
        String what = use.label();
        Dialect dialect = dialectOf(use, url);
        String trimmed = url.trim();
        if (dialect == Dialect.H2) {
            trimmed = resolveH2Path(what, trimmed, dataDir);
        }
        // H2 separates settings with ';', the others use a '?…&…' query.
        char sep = dialect == Dialect.H2 ? ';' : '&';
        int start = dialect == Dialect.H2 ? trimmed.indexOf(';') : trimmed.indexOf('?');
        String base = start < 0 ? trimmed : trimmed.substring(0, start);
        List<String> kept = new ArrayList<>();
        Duration timeout = DEFAULT_TIMEOUT;
        int poolSize = DEFAULT_POOL_SIZE;
        String namespace = use == Use.SEGMENTS ? DEFAULT_NAMESPACE : null;
        boolean namespaced = false;
        Use table = use;
        String known = "idmint.timeout, idmint.pool-size"
                + (use == Use.SEGMENTS ? ", idmint.namespace, idmint.table" : "");
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
                        timeout = parseTimeout(what, value);
                        break;
                    case "idmint.pool-size":
                        poolSize = parsePoolSize(what, value);
                        break;
                    case "idmint.namespace":
                        if (use == Use.SEGMENTS) {
                            namespace = parseNamespace(what, value);
                            namespaced = true;
                            break;
                        }
                        throw new IllegalArgumentException(what + " '" + displayOf(trimmed)
                                + "': option 'idmint.namespace' is for segment stores; a "
                                + "registry's namespace is the node's own setting");
                    case "idmint.table":
                        if (use == Use.SEGMENTS) {
                            table = parseTable(what, value);
                            break;
                        }
                        throw new IllegalArgumentException(what + " '" + displayOf(trimmed)
                                + "': option 'idmint.table' is for segment stores");
                    default:
                        throw new IllegalArgumentException(what + " '" + displayOf(trimmed)
                                + "': unknown option '" + key + "'; known: " + known);
                }
            }
        }
        if (table == Use.LEAF_ALLOC) {
            if (namespaced) {
                throw new IllegalArgumentException(what + " '" + displayOf(trimmed) + "': "
                        + "idmint.namespace does not apply to idmint.table=leaf_alloc, whose tags "
                        + "are Leaf's biz_tags; leave it out");
            }
            namespace = null;
        }
        if (dialect == Dialect.H2) {
            requireCommitsWritten(what, trimmed, base, kept);
        }
        String driverUrl = kept.isEmpty() ? base : base + (dialect == Dialect.H2 ? ";" : "?")
                + String.join(String.valueOf(sep), kept);
        return new JdbcConfig(table, dialect, driverUrl, displayOf(trimmed), timeout, poolSize,
                namespace, nonEmpty(env.get(USER_ENV)), nonEmpty(env.get(PASSWORD_ENV)));
    }

    /**
     * A segment store on an application's own DataSource, whose connections answered with
     * {@code url} ({@code DatabaseMetaData.getURL()}): idmint's table in {@code namespace}.
     *
     * @throws IllegalArgumentException when the database is none idmint supports, the
     *     namespace is not a valid name, or an H2 file database may lose committed writes
     */
    static JdbcConfig ofDataSource(String url, String namespace) {
        String what = "jdbc segment store on the application's DataSource";
        Dialect dialect = dialectOf(Use.SEGMENTS, url);
        String trimmed = url.trim();
        if (dialect == Dialect.H2) {
            String db = trimmed.substring("jdbc:h2:".length()).toLowerCase(Locale.ROOT);
            boolean file = !(db.startsWith("mem:") || db.startsWith("tcp:")
                    || db.startsWith("ssl:"));
            if (file && !trimmed.toUpperCase(Locale.ROOT).contains(";WRITE_DELAY=0")) {
                throw new IllegalArgumentException(what + " '" + displayOf(trimmed) + "': an H2 "
                        + "file database writes commits to its file only every 500 ms, so a crash "
                        + "could hand out a segment value twice; add ;WRITE_DELAY=0 to its URL, "
                        + "or set idmint.segment.store");
            }
        }
        return new JdbcConfig(Use.SEGMENTS, dialect, trimmed, displayOf(trimmed),
                DEFAULT_TIMEOUT, 0, parseNamespace(what, namespace), null, null);
    }

    /**
     * The database family of a URL.
     *
     * @throws IllegalArgumentException when the URL is empty or names no supported database
     */
    static Dialect dialectOf(Use use, String url) {
        if (url == null || url.isBlank()) {
            throw new IllegalArgumentException(use.label() + ": the URL is empty");
        }
        Dialect dialect = Dialect.of(url.trim());
        if (dialect == null) {
            throw new IllegalArgumentException(use.label() + " '" + displayOf(url.trim())
                    + "': unsupported database; use jdbc:postgresql://…, jdbc:mysql://…, "
                    + "jdbc:mariadb://… or jdbc:h2:…");
        }
        return dialect;
    }

    /**
     * An embedded H2 file database writes committed transactions to its file only every
     * {@code WRITE_DELAY} ms (default 500): a process crash in between loses acknowledged
     * commits, and with them an HWM or a segment allocation (values handed out twice). So every
     * commit is written at once ({@code WRITE_DELAY=0}, added unless the URL says so); another
     * value is refused.
     */
    private static void requireCommitsWritten(String what, String url, String base,
            List<String> settings) {
        String db = base.substring("jdbc:h2:".length()).toLowerCase(Locale.ROOT);
        if (db.startsWith("mem:") || db.startsWith("tcp:") || db.startsWith("ssl:")) {
            return;
        }
        for (String s : settings) {
            if (s.toUpperCase(Locale.ROOT).startsWith("WRITE_DELAY=")) {
                if (!s.substring("WRITE_DELAY=".length()).trim().equals("0")) {
                    throw new IllegalArgumentException(what + " '" + displayOf(url) + "': H2 "
                            + "setting '" + s + "' would let a crash lose committed writes; "
                            + "leave it out (WRITE_DELAY=0 is set)");
                }
                return;
            }
        }
        settings.add("WRITE_DELAY=0");
    }

    /**
     * Resolves an H2 file path that H2 would refuse as implicitly relative to the working
     * directory ({@code jdbc:h2:ids}, {@code jdbc:h2:file:ids}) under the data directory.
     * Absolute, {@code ./}, {@code ~/} paths and other kinds ({@code mem:}, {@code tcp:}, …)
     * keep H2's own meaning.
     */
    private static String resolveH2Path(String what, String url, Path dataDir) {
        String head = url.substring(0, "jdbc:h2:".length());
        String rest = url.substring(head.length());
        int semi = rest.indexOf(';');
        String name = semi < 0 ? rest : rest.substring(0, semi);
        String settings = semi < 0 ? "" : rest.substring(semi);
        String kind = "";
        if (name.regionMatches(true, 0, "file:", 0, 5)) {
            kind = name.substring(0, 5);
            name = name.substring(5);
        } else if (H2_PREFIX.matcher(name).matches()) {
            return url;
        }
        if (name.isEmpty()) {
            throw new IllegalArgumentException(what + " '" + displayOf(url) + "': names no "
                    + "database; use jdbc:h2:file:NAME (under the data directory), "
                    + "jdbc:h2:/absolute/path or jdbc:h2:mem:NAME");
        }
        boolean explicit = name.startsWith("/") || name.startsWith("\\") || name.startsWith("~")
                || name.startsWith("./") || name.startsWith("../") || name.startsWith(".\\")
                || name.startsWith("..\\") || name.matches("[A-Za-z]:.*");
        if (explicit) {
            return url;
        }
        if (dataDir == null) {
            throw new IllegalArgumentException(what + " '" + displayOf(url) + "': H2 path '"
                    + name + "' is relative and there is no data directory to resolve it under; "
                    + "use an absolute path or ./" + name);
        }
        return head + kind + dataDir.toAbsolutePath().normalize().resolve(name) + settings;
    }

    /** Whether the driver URL already sets a driver property (so a default must not override). */
    boolean urlSets(String property) {
        return Pattern.compile("[?&;]" + Pattern.quote(property) + "=", Pattern.CASE_INSENSITIVE)
                .matcher(driverUrl).find();
    }

    private static Duration parseTimeout(String what, String value) {
        try {
            return Durations.parse(value, Duration.ofMillis(250), Duration.ofMinutes(1));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(what + ": idmint.timeout " + e.getMessage(), e);
        }
    }

    private static int parsePoolSize(String what, String value) {
        try {
            int n = Integer.parseInt(value.trim());
            if (n >= 1 && n <= 16) {
                return n;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException(what + ": idmint.pool-size '" + value
                + "' must be a whole number from 1 to 16");
    }

    /** {@code idmint_segment} (idmint's own table, the default) or {@code leaf_alloc}. */
    private static Use parseTable(String what, String value) {
        return switch (value) {
            case "idmint_segment" -> Use.SEGMENTS;
            case "leaf_alloc" -> Use.LEAF_ALLOC;
            default -> throw new IllegalArgumentException(what + ": idmint.table '" + value
                    + "' must be idmint_segment (idmint's own table, created on first use) or "
                    + "leaf_alloc (an existing Leaf table, see docs/migration.md)");
        };
    }

    private static String parseNamespace(String what, String value) {
        if (!Names.isValid(value)) {
            throw new IllegalArgumentException(what + ": idmint.namespace '" + value
                    + "' must be " + Names.RULE);
        }
        return value;
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
        return "JdbcConfig[" + display + ", timeout=" + Durations.format(timeout) + ", pool-size="
                + poolSize
                + (namespace == null ? "" : ", namespace=" + namespace) + "]";
    }

    private static String nonEmpty(String s) {
        return s == null || s.isEmpty() ? null : s;
    }
}

package io.idmint.server.config;

import io.idmint.ClockPolicy;
import io.idmint.Layout;
import io.idmint.SequenceStart;
import io.idmint.Snowflake;
import io.idmint.codes.CodeSettings;
import io.idmint.segment.SegmentOrder;
import io.idmint.segment.Segments;
import io.idmint.server.ops.Logs;
import io.idmint.spi.support.Durations;
import io.idmint.spi.support.NodeValues;
import io.idmint.spi.support.Providers;
import java.io.IOException;
import java.io.StringReader;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.TreeSet;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.stream.Stream;

/**
 * The resolved configuration of one command. Every key is read from its flag, else its
 * environment variable ({@code IDMINT_} and the key upper-cased, {@code .} and {@code -} as
 * {@code _}), else the config file (a Java properties file named by {@code --config} or
 * {@code IDMINT_CONFIG}), else its default. A variable set but blank is an error, never "unset".
 * Every value present is parsed at load, so a bad one
 * fails the command before it does anything, with a message naming the key, the value and where
 * it came from.
 *
 * <p>A new key is one line in the table below; its flag, environment variable and help text
 * follow from it.
 */
public final class Config {

    /** The largest max-count a server may be configured with. */
    public static final int MAX_COUNT_LIMIT = 1_000_000;

    /** The environment variable naming the config file. */
    public static final String CONFIG_ENV = "IDMINT_CONFIG";

    /**
     * One configuration key: its dotted name (as the config file writes it), its default as
     * text (null when it has none), the label of its value in help, its help text and parser
     * (which sees the process environment too: {@code worker=ordinal} reads the pod name).
     */
    public record Key<T>(String name, String defaultValue, String valueLabel, String description,
            BiFunction<String, Map<String, String>, T> parser) {

        /** {@code --} and the name with {@code .} as {@code -}. */
        public String flag() {
            return "--" + name.replace('.', '-');
        }

        public String envVar() {
            return "IDMINT_" + name.toUpperCase(Locale.ROOT).replace('.', '_').replace('-', '_');
        }

        T parse(String raw, Map<String, String> env) {
            return parser.apply(raw, env);
        }

        // Keys are compared by identity: each is one constant of this class.
        @Override
        public boolean equals(Object o) {
            return this == o;
        }

        @Override
        public int hashCode() {
            return System.identityHashCode(this);
        }

        @Override
        public String toString() {
            return name;
        }
    }

    /** A raw value and where it came from, for messages. */
    public record Setting(String value, String source) {
    }

    private static final List<Key<?>> KEYS = new ArrayList<>();
    private static final Duration ONE_MS = Duration.ofMillis(1);

    public static final Key<Layout> LAYOUT = key("layout", "snowflake", "SPEC",
            "bit layout: a preset (snowflake, region, instagram, sonyflake, uid-generator, js-safe;"
                    + " with their own epochs: leaf, twitter, sonyflake-2014, uid-generator-2016,"
                    + " discord) or fields such as time=41,datacenter=5,worker=5,sequence=12",
            Layout::parse);
    public static final Key<Integer> DATACENTER = key("datacenter", "0", "N",
            "this node's datacenter ID, 0 to the layout's largest (31 for snowflake)",
            ConfigValues.integer(0, Integer.MAX_VALUE));
    public static final Key<String> DATACENTER_NAME = key("datacenter.name", null, "NAME",
            "this datacenter's name; the registry refuses a second name for one datacenter ID",
            ConfigValues::text);
    public static final Key<Integer> WORKER = envKey("worker", null, "N|ordinal",
            "preferred worker ID, taken when free; ordinal: the N that ends the pod name "
                    + "(POD_NAME, else HOSTNAME, as in a StatefulSet's name-N); without it, 0 "
                    + "(the registry picks another when 0 is held or ahead of the clock); at most "
                    + "the layout's largest worker ID",
            NodeValues::worker);
    public static final Key<Integer> WORKERS = key("workers", "1", "N|auto",
            "worker IDs serve leases and mints from in parallel, 1 to 1024; auto: one per "
                    + "available processor", NodeValues::workers);
    public static final Key<String> REGISTRY = key("registry", "static:", "URI",
            "worker registry: static:, etcd://…, zk://…, jdbc:…", ConfigValues::text);
    public static final Key<List<String>> STATIC_PEERS = key("static.peers", null, "HOST:PORT,…",
            "with the static: registry (one host only): the other nodes' HTTP addresses; this "
                    + "node is not ready while one holds its worker", Config::parsePeers);
    public static final Key<Path> DATA_DIR = key("data-dir", "./data", "DIR",
            "directory for local state; the static: registry keeps its workers here",
            text -> Path.of(ConfigValues.text(text)));
    public static final Key<String> NAMESPACE = key("namespace", "default", "NAME",
            "the deployment's name in the registry", ConfigValues::text);
    public static final Key<ClockPolicy> CLOCK_POLICY = key("clock.policy", "fail", "POLICY",
            "when the clock steps back past the wait: fail or continue", ConfigValues::clockPolicy);
    public static final Key<Duration> CLOCK_MAX_WAIT = durationKey("clock.max-wait", "10ms",
            "how long to wait for a clock that is behind", Duration.ZERO,
            Snowflake.MAX_CLOCK_WAIT);
    public static final Key<Duration> CLOCK_MAX_FORWARD_STEP = durationKey("clock.max-forward-step",
            "1s", "largest forward step of the wall clock followed at once; larger ones "
                    + "wait for the fleet clock check (or a minute) to confirm them",
            ONE_MS, Snowflake.MAX_FORWARD_STEP);
    public static final Key<Duration> CLOCK_MAX_SKEW = durationKey("clock.max-skew", "2s",
            "how far this node's clock may be from the fleet's (store clock or other holders' "
                    + "high-water marks) before it takes no worker", ONE_MS,
            Snowflake.MAX_CLOCK_SKEW);
    public static final Key<Duration> SEQUENCE_MAX_LEAD = durationKey("sequence.max-lead", "0ms",
            "how far ahead of the clock the sequence may borrow", Duration.ZERO,
            Snowflake.MAX_LEAD);
    public static final Key<Boolean> SEQUENCE_RANDOM_START = key("sequence.start", "zero",
            "zero|random",
            "where each tick's sequence starts: zero, or random below sequence.random-span "
                    + "(spreads id mod N at low rates)", ConfigValues::sequenceStart);
    public static final Key<Integer> SEQUENCE_RANDOM_SPAN = key("sequence.random-span",
            Integer.toString(SequenceStart.DEFAULT_RANDOM_SPAN), "N",
            "span of a random sequence start, 2 to the layout's IDs per tick; a tick then "
                    + "holds at least IDs per tick - N + 1",
            ConfigValues.integer(2, SequenceStart.MAX_SPAN, "a whole number from 2 to "
                    + SequenceStart.MAX_SPAN + " (and at most the layout's IDs per tick)"));
    public static final Key<Duration> LEASE_TTL = durationKey("lease.ttl", "30s",
            "how long the registry keeps a worker without renewal, at least 3 x "
                    + "lease.keepalive", ONE_MS, Snowflake.MAX_LEASE);
    public static final Key<Duration> LEASE_KEEPALIVE = durationKey("lease.keepalive", "10s",
            "how often the worker lease is renewed", ONE_MS, Snowflake.MAX_LEASE);
    public static final Key<Duration> LEASE_STORE_TIMEOUT =
            durationKey("lease.store-timeout", "15s",
            "how long IDs may be issued after the registry was last reached, at most lease.ttl",
            ONE_MS, Snowflake.MAX_LEASE);
    public static final Key<Duration> LEASE_RESERVATION = durationKey("lease.reservation", "10s",
            "how far ahead of the clock each high-water-mark reservation reaches",
            Snowflake.MIN_RESERVATION, Snowflake.MAX_RESERVATION);

    public static final Key<Integer> HTTP_PORT = key("http-port", "8080", "PORT",
            "HTTP port of serve, 0 to 65535; 0 picks a free port", ConfigValues.PORT);
    public static final Key<Integer> GRPC_PORT = key("grpc-port", "9090", "PORT",
            "gRPC port of serve, 0 to 65535; 0 picks a free port", ConfigValues.PORT);
    public static final Key<String> BIND = key("bind", "0.0.0.0", "ADDRESS",
            "address serve listens on (HTTP and gRPC): an IPv4 or IPv6 address, or a host name, "
                    + "such as 127.0.0.1, ::1 or localhost", ConfigValues::bind);
    public static final Key<Integer> MAX_COUNT = key("max-count", "10000", "N",
            "the most IDs one request may ask for, 1 to " + MAX_COUNT_LIMIT,
            ConfigValues.integer(1, MAX_COUNT_LIMIT));
    public static final Key<String> AUTH_TOKEN = key("auth.token", null, "TOKEN",
            "bearer token every API call must carry; none: no authentication", ConfigValues::text);
    public static final Key<String> AUTH_ADMIN_TOKEN = key("auth.admin-token", null, "TOKEN",
            "bearer token for admin calls (decode, segment tags); it also passes API calls",
            ConfigValues::text);
    public static final Key<Long> RATE_LIMIT = key("rate-limit", "0", "IDS",
            "IDs per second per client (its token, else its address): 0 (no limit) or from "
                    + "max-count to 10^18",
            ConfigValues.number(0, 1_000_000_000_000_000_000L));
    public static final Key<Path> TLS_CERT = key("tls.cert", null, "FILE",
            "PEM certificate chain (leaf first): HTTP and gRPC then serve TLS only; the files "
                    + "are read again every few seconds", ConfigValues::readableFile);
    public static final Key<Path> TLS_KEY = key("tls.key", null, "FILE",
            "PEM PKCS#8 private key of tls.cert", ConfigValues::readableFile);
    public static final Key<Path> TLS_CLIENT_CA = key("tls.client-ca", null, "FILE",
            "PEM authorities clients must present a certificate from (mutual TLS)",
            ConfigValues::readableFile);
    public static final Key<Duration> SHUTDOWN_GRACE = durationKey("shutdown.grace", "10s",
            "how long in-flight requests may finish after SIGTERM", Duration.ZERO,
            Duration.ofMinutes(10));
    public static final Key<Duration> IDLE_TIMEOUT = durationKey("idle-timeout", "30s",
            "how long an HTTP or gRPC connection stays open with no request in flight, and the "
                    + "most a request head or body may take to arrive", Duration.ofSeconds(1),
            Duration.ofHours(1));
    public static final Key<Integer> HTTP_MAX_CONNECTIONS = key("http.max-connections", "4096", "N",
            "the most HTTP connections open at once, 1 to 1000000; at the limit a new one "
                    + "takes the place of the oldest with no request in flight",
            ConfigValues.integer(1, 1_000_000));
    public static final Key<Integer> GRPC_MAX_CONNECTIONS = key("grpc.max-connections", "4096", "N",
            "the most gRPC connections open at once, 1 to 1000000; past it a new one is "
                    + "closed at once", ConfigValues.integer(1, 1_000_000));
    public static final Key<Integer> GRPC_MAX_CALLS_PER_CONNECTION = key(
            "grpc.max-calls-per-connection", "100", "N",
            "the most gRPC calls in flight on one connection (HTTP/2 streams), 1 to 10000",
            ConfigValues.integer(1, 10_000));
    public static final Key<Integer> GRPC_MAX_WAITING_CALLS = key("grpc.max-waiting-calls",
            "1000", "N",
            "the most gRPC calls waiting for a thread, 1 to 100000; past it a new call is "
                    + "answered UNAVAILABLE before it takes one (health checks never wait)",
            ConfigValues.integer(1, 100_000));
    public static final Key<Integer> GRPC_MAX_BUFFERED = key("grpc.max-buffered", "64", "MIB",
            "the most MiB of gRPC replies held for callers that have not read them yet, 1 to "
                    + "65536; past it a call is answered UNAVAILABLE before it mints",
            ConfigValues.integer(1, 65_536));

    public static final Key<String> CODES_KEY = key("codes.key", null, "HEX",
            "AES key for codes (32 or 64 hex digits); no default key, never printed",
            ConfigValues::codesKey);
    public static final Key<Path> CODES_KEY_FILE = key("codes.key-file", null, "FILE",
            "file holding the codes key as 32 or 64 hex digits (instead of codes.key)",
            ConfigValues::readableFile);
    public static final Key<Integer> CODES_KEY_VERSION = key("codes.key-version", "1", "N",
            "key version of codes.key, 0 to 31: the first symbol of every new code",
            ConfigValues.KEY_VERSION);
    public static final Key<java.util.SortedMap<Integer, String>> CODES_OLD_KEYS =
            key("codes.old-keys",
            null, "V:HEX,...", "retired codes keys, still accepted for decoding: "
                    + "version:hex,version:hex; never printed", CodeSettings::oldKeys);
    public static final Key<Boolean> CODES_DEV = key("codes.dev", "false", "BOOL",
            "development only: a random codes key each start, so codes change on restart",
            ConfigValues::bool);
    public static final Key<Integer> CODES_SEGMENT_BITS = key("codes.segment-bits", "40", "BITS",
            "the width of segment values' public codes, 20 to 63: codes of 2 + ceil(BITS/5) "
                    + "symbols for values below 2^BITS", ConfigValues.integer(20, 63));
    public static final Key<Long> FLAKE_WORKER = key("flake.worker", null, "N|MAC",
            "worker of 128-bit flakes: 0 to 2^48-1 or a MAC address (aa:bb:cc:dd:ee:ff), "
                    + "unique per process", ConfigValues::flakeWorker);

    public static final Key<String> SEGMENT_STORE = key("segment.store",
            io.idmint.jdbc.JdbcRangeStores.DEFAULT_URL, "URI",
            "segment range store: jdbc:…, redis://…, etcd://…, zk://…; the default is an "
                    + "embedded H2 database under data-dir", ConfigValues::text);
    public static final Key<Long> SEGMENT_STEP = key("segment.step", "1000", "N",
            "the step of segment tags created without one (create --step, auto-create), 1 to "
                    + "2^40",
            ConfigValues.SEGMENT_STEP);
    public static final Key<Long> SEGMENT_MIN_STEP = key("segment.min-step", null, "N",
            "the smallest step adaptation may choose, 1 to 2^40; unset: 100, or segment.step "
                    + "when smaller", ConfigValues.SEGMENT_STEP);
    public static final Key<Long> SEGMENT_MAX_STEP = key("segment.max-step", null, "N",
            "the largest step adaptation may choose, 1 to 2^40; unset: 1000000, or "
                    + "segment.step when larger", ConfigValues.SEGMENT_STEP);
    public static final Key<Duration> SEGMENT_TARGET_DURATION =
            durationKey("segment.target-duration",
            "1m", "how long one segment range should last: faster doubles the step, over "
                    + "twice as long halves it", ONE_MS, Segments.MAX_TARGET);
    public static final Key<Duration> SEGMENT_FETCH_TIMEOUT = durationKey("segment.fetch-timeout",
            "1s", "how long a segment call waits for a range when both buffers are empty "
                    + "before 503", ONE_MS, Segments.MAX_FETCH_TIMEOUT);
    public static final Key<Integer> SEGMENT_MAX_TAGS = key("segment.max-tags", "1000", "N",
            "the most segment tags one node serves (and segment.auto-create creates), 1 to "
                    + "1000000; a call for one more answers 429",
            ConfigValues.integer(1, 1_000_000));
    public static final Key<Boolean> SEGMENT_AUTO_CREATE =
            key("segment.auto-create", "false", "BOOL",
            "create an unknown segment tag on first use (start 1, segment.step) instead of 404",
            ConfigValues::bool);
    public static final Key<SegmentOrder> SEGMENT_ORDER = key("segment.order", "issue", "ORDER",
            "issue: segment IDs in the order calls take them; relaxed: per-thread blocks, "
                    + "faster, ordered per thread only", ConfigValues::segmentOrder);
    public static final Key<Boolean> LEAF_COMPAT = key("leaf.compat", "off", "off|strict",
            "strict: /api/segment/get/{key} and /api/snowflake/get/{key} read paths and answer "
                    + "errors, methods, query parameters and content types as Leaf's server "
                    + "does (docs/migration.md); off: as the rest of the API",
            ConfigValues::leafCompat);
    public static final Key<String> LOG_FORMAT = key("log.format", "text", "text|json",
            "serve's log lines: text, or json (one object per line)", Logs::format);
    public static final Key<String> LOG_LEVEL = key("log.level", "info", "LEVEL[,LOGGER=LEVEL…]",
            "log levels: off, error, warn, info, debug, trace; then per logger, e.g. "
                    + "info,io.netty=warn", Logs::levelSpec);
    public static final Key<String> LOG_ACCESS = key("log.access", "off", "off|on|FILE",
            "one line per HTTP request: off, on (with the log), or appended to FILE (its "
                    + "directory must exist)", ConfigValues::accessLog);

    /** The keys {@code idmint segment} reads: where the store is and the step of new tags. */
    public static final List<Key<?>> SEGMENT_KEYS = List.of(SEGMENT_STORE, DATA_DIR, SEGMENT_STEP);

    /** The keys {@code idmint serial} reads: the store's and the codes' ({@code {code:BITS}}). */
    public static final List<Key<?>> SERIAL_KEYS = List.of(SEGMENT_STORE, DATA_DIR, SEGMENT_STEP,
            CODES_KEY, CODES_KEY_FILE, CODES_KEY_VERSION, CODES_OLD_KEYS, CODES_DEV);

    /** The keys a command that mints IDs reads. */
    public static final List<Key<?>> MINT_KEYS =
            List.of(LAYOUT, DATACENTER, DATACENTER_NAME, WORKER,
            REGISTRY, DATA_DIR, NAMESPACE, CLOCK_POLICY, CLOCK_MAX_WAIT, CLOCK_MAX_FORWARD_STEP,
            CLOCK_MAX_SKEW, SEQUENCE_MAX_LEAD,
            SEQUENCE_RANDOM_START, SEQUENCE_RANDOM_SPAN, LEASE_TTL, LEASE_KEEPALIVE,
            LEASE_STORE_TIMEOUT, LEASE_RESERVATION, CODES_KEY, CODES_KEY_FILE, CODES_KEY_VERSION,
            CODES_OLD_KEYS, CODES_DEV, FLAKE_WORKER);

    /** The keys {@code decode} reads: the layout and the keys that decode codes. */
    public static final List<Key<?>> DECODE_KEYS =
            List.of(LAYOUT, CODES_KEY, CODES_KEY_FILE, CODES_KEY_VERSION, CODES_OLD_KEYS);

    /** Keys whose values {@code idmint config} never prints. */
    public static boolean secret(Key<?> key) {
        return key.name().startsWith("auth.") || key == CODES_KEY || key == CODES_OLD_KEYS;
    }

    /** The keys {@code serve} reads: the minting keys and the server's own. */
    public static final List<Key<?>> SERVE_KEYS =
            Stream.concat(MINT_KEYS.stream(), Stream.of(WORKERS,
            STATIC_PEERS, HTTP_PORT, GRPC_PORT, BIND, MAX_COUNT, AUTH_TOKEN, AUTH_ADMIN_TOKEN,
            RATE_LIMIT, TLS_CERT, TLS_KEY, TLS_CLIENT_CA, SHUTDOWN_GRACE, IDLE_TIMEOUT,
            HTTP_MAX_CONNECTIONS, GRPC_MAX_CONNECTIONS, GRPC_MAX_CALLS_PER_CONNECTION,
            GRPC_MAX_WAITING_CALLS, GRPC_MAX_BUFFERED, SEGMENT_STORE, SEGMENT_STEP,
            SEGMENT_MIN_STEP, SEGMENT_MAX_STEP, SEGMENT_TARGET_DURATION, SEGMENT_FETCH_TIMEOUT,
            SEGMENT_MAX_TAGS, SEGMENT_AUTO_CREATE, CODES_SEGMENT_BITS,
            SEGMENT_ORDER, LEAF_COMPAT, LOG_FORMAT, LOG_LEVEL, LOG_ACCESS))
            .toList();

    private final Map<Key<?>, Object> values;
    private final Map<Key<?>, Setting> settings;
    private final List<String> warnings;

    private Config(Map<Key<?>, Object> values, Map<Key<?>, Setting> settings,
            List<String> warnings) {
        this.values = values;
        this.settings = settings;
        this.warnings = warnings;
    }

    /**
     * A duration key from {@code min} to {@code max}: its help ends with the range, written from
     * the same two values the parser checks, so the two cannot drift apart.
     */
    private static Key<Duration> durationKey(String name, String defaultValue,
            String description, Duration min, Duration max) {
        return key(name, defaultValue, "DURATION", description + "; " + Durations.format(min)
                + " to " + Durations.format(max), text -> Durations.parse(text, min, max));
    }

    private static <T> Key<T> key(String name, String defaultValue, String valueLabel,
            String description, Function<String, T> parser) {
        return envKey(name, defaultValue, valueLabel, description,
                (raw, env) -> parser.apply(raw));
    }

    /** A key whose value may depend on the process environment. */
    private static <T> Key<T> envKey(String name, String defaultValue, String valueLabel,
            String description, BiFunction<String, Map<String, String>, T> parser) {
        Key<T> key = new Key<>(name, defaultValue, valueLabel, description, parser);
        KEYS.add(key);
        return key;
    }

    /** Every key, in the order of the table. */
    public static List<Key<?>> keys() {
        return Collections.unmodifiableList(KEYS);
    }

    /**
     * Resolves every key.
     *
     * @param flags values given as flags (or arguments), by key
     * @param env the process environment
     * @param configFlag the {@code --config} value, or null
     * @throws IllegalArgumentException naming the key, value and source of a bad value, a
     *     variable set but blank, an unknown or repeated key in the config file, a config file
     *     that does not exist, is a directory, cannot be read or is not a text properties file
     * @throws IllegalStateException when reading the config file fails otherwise (I/O)
     */
    public static Config load(Map<Key<?>, Setting> flags, Map<String, String> env,
            String configFlag) {
        Setting file = configFlag != null ? new Setting(configFlag, "--config")
                : fromEnv(env, CONFIG_ENV) != null ? new Setting(env.get(CONFIG_ENV), CONFIG_ENV)
                : null;
        Properties properties = file == null ? new Properties() : read(file);
        Map<Key<?>, Object> values = new HashMap<>();
        Map<Key<?>, Setting> settings = new HashMap<>();
        for (Key<?> key : KEYS) {
            Setting s = flags.get(key);
            String fromEnv = fromEnv(env, key.envVar());
            if (s == null && fromEnv != null) {
                s = new Setting(fromEnv, "environment variable " + key.envVar());
            }
            if (s == null && properties.getProperty(key.name()) != null) {
                s = new Setting(properties.getProperty(key.name()).trim(),
                        "config file " + file.value());
            }
            if (s == null && key.defaultValue() != null) {
                s = new Setting(key.defaultValue(), "default");
            }
            if (s != null) {
                values.put(key, parse(key, s, env));
                settings.put(key, s);
            }
        }
        List<String> known = new ArrayList<>(KEYS.stream().map(Key::envVar).toList());
        known.add(CONFIG_ENV);
        known.add("IDMINT_JAVA_OPTS"); // the launcher's JVM flags (./idmint)
        return new Config(values, settings, ConfigValues.envWarnings(known, env));
    }

    /**
     * Checks the rules that tie {@code serve}'s keys together, which no single key's parser can:
     * a rate limit that admits a request for max-count IDs, and {@code static.peers} only on the
     * {@code static:} registry of plaintext nodes. The other commands read a subset of the keys
     * and do not ask.
     *
     * @throws IllegalArgumentException naming the keys and what to change
     */
    public void checkServe() {
        long rate = get(RATE_LIMIT);
        int maxCount = get(MAX_COUNT);
        if (rate > 0 && rate < maxCount) {
            throw new IllegalArgumentException("rate-limit " + rate + " must be 0 or at least "
                    + "max-count (" + maxCount + "): a request for max-count IDs could never pass");
        }
        if (get(STATIC_PEERS) == null) {
            return;
        }
        if (!get(REGISTRY).startsWith("static:")) {
            throw new IllegalArgumentException("static.peers checks the workers of the "
                    + "static: registry, which is one host only; registry "
                    + Providers.redact(get(REGISTRY)) + " already keeps workers unique across "
                    + "hosts: unset static.peers");
        }
        if (get(TLS_CERT) != null) {
            throw new IllegalArgumentException("static.peers asks the other nodes over "
                    + "plain HTTP, which a node with tls.cert does not answer: use a "
                    + "shared registry (etcd://, zk://, jdbc:) for TLS nodes");
        }
    }

    /** What the operator should hear about the environment (misspelled variables). */
    public List<String> warnings() {
        return warnings;
    }

    private static Object parse(Key<?> key, Setting s, Map<String, String> env) {
        try {
            return key.parse(s.value(), env);
        } catch (IllegalArgumentException e) {
            String shown = secret(key) ? "(hidden)" : s.value();
            throw new IllegalArgumentException(key.name() + " '" + shown + "' (from "
                    + s.source() + ") is not valid: " + e.getMessage(), e);
        }
    }

    private static Properties read(Setting file) {
        Path path = Path.of(file.value());
        String where = "config file '" + file.value() + "' (from " + file.source() + ")";
        String text;
        try {
            if (Files.isDirectory(path)) {
                throw new IllegalArgumentException(where + " is a directory");
            }
            text = StandardCharsets.UTF_8.newDecoder()
                    .decode(ByteBuffer.wrap(Files.readAllBytes(path))).toString();
            if (text.indexOf('\0') >= 0) {
                throw new IllegalArgumentException(where + " is not a text properties file: it "
                        + "holds a NUL byte");
            }
        } catch (NoSuchFileException e) {
            throw new IllegalArgumentException(where + " does not exist");
        } catch (CharacterCodingException e) {
            throw new IllegalArgumentException(where + " is not a text properties file: it is "
                    + "not UTF-8");
        } catch (AccessDeniedException e) {
            throw new IllegalArgumentException(where + " cannot be read (permissions)");
        } catch (IOException e) {
            throw new IllegalStateException("cannot read " + where + ": " + e, e);
        }
        Properties properties = new OnceProperties();
        try {
            properties.load(new StringReader(text));
        } catch (IOException | IllegalArgumentException e) { // a bad escape, a key twice
            throw new IllegalArgumentException(where + ": " + e.getMessage(), e);
        }
        TreeSet<String> unknown = new TreeSet<>(properties.stringPropertyNames());
        KEYS.forEach(k -> unknown.remove(k.name()));
        if (!unknown.isEmpty()) {
            throw new IllegalArgumentException("config file '" + file.value() + "': unknown key"
                    + (unknown.size() > 1 ? "s " : " ") + String.join(", ", unknown)
                    + "; known keys are "
                    + String.join(", ", KEYS.stream().map(Key::name).toList()));
        }
        return properties;
    }

    /**
     * Properties that refuse a key given twice: {@link Properties#load} calls {@link #put} once
     * per entry, and would otherwise keep the last one without a word.
     */
    private static final class OnceProperties extends Properties {
        private static final long serialVersionUID = 1L;

        @Override
        public synchronized Object put(Object key, Object value) {
            if (containsKey(key)) {
                throw new IllegalArgumentException("key " + key + " is given twice; give each "
                        + "key once");
            }
            return super.put(key, value);
        }
    }

    /**
     * The value of an environment variable idmint reads, or null when it is not set. One that is
     * set but blank is an error, whatever the command: {@code IDMINT_AUTH_TOKEN=} would
     * otherwise turn authentication off without a word, where the same empty flag is refused.
     */
    private static String fromEnv(Map<String, String> env, String variable) {
        String value = env.get(variable);
        if (value != null && value.isBlank()) {
            throw new IllegalArgumentException("environment variable " + variable + " is set but "
                    + "empty: unset it or give a value");
        }
        return value;
    }

    /** The value of a key, or null when it has no default and was not set. */
    @SuppressWarnings("unchecked")
    public <T> T get(Key<T> key) {
        return (T) values.get(key);
    }

    /**
     * The text of a key's value and where it came from (a flag, an environment variable, the
     * file, or the default), or null when it is not set.
     */
    public Setting setting(Key<?> key) {
        return settings.get(key);
    }

    /** {@code host:port,…} as {@code static.peers} takes it. */
    private static List<String> parsePeers(String text) {
        List<String> out = new ArrayList<>();
        for (String p : text.split(",", -1)) {
            String s = p.trim();
            int colon = s.lastIndexOf(':');
            String port = colon < 0 ? "" : s.substring(colon + 1);
            if (colon < 1 || port.isEmpty() || port.length() > 5
                    || !port.chars().allMatch(c -> c >= '0' && c <= '9')
                    || Integer.parseInt(port) < 1 || Integer.parseInt(port) > 65535) {
                throw new IllegalArgumentException("expected host:port[,host:port…] (the peers' "
                        + "HTTP addresses), got '" + s + "'");
            }
            out.add(s);
        }
        return out;
    }
}

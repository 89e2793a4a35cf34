package io.idmint.redis;

import io.idmint.spi.Range;
import io.idmint.spi.RangeStore;
import io.idmint.spi.RegistryException;
import io.idmint.spi.RegistryException.Kind;
import io.idmint.spi.TagInfo;
import io.idmint.spi.UnknownTagException;
import io.idmint.spi.support.TagValue;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import javax.net.ssl.SSLParameters;
import redis.clients.jedis.ConnectionFactory;
import redis.clients.jedis.ConnectionPoolConfig;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.DefaultJedisSocketFactory;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.JedisSocketFactory;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.Response;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.exceptions.JedisNoScriptException;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.providers.PooledConnectionProvider;
import redis.clients.jedis.resps.ScanResult;

/**
 * A {@link RangeStore} on Redis: one hash per tag, {@code <namespace>:segments:<tag>}, with the
 * fields {@code next} (the start of the tag's next range) and {@code step} (its step as
 * created). An allocation is one Lua script, atomic on the server: it refuses a missing key
 * instead of creating it (as a bare {@code HINCRBY} would), checks the stored values, and
 * {@code HINCRBY}s {@code next}, which Redis refuses past 2^63 - 1.
 *
 * <p>Serial definitions are the fields of one hash, {@code <namespace>:serials}, set with
 * {@code HSETNX} so that the first definition stays.
 *
 * <p>Every failure on the way to or from Redis (refused connection, timeout, an error reply
 * such as {@code LOADING} or {@code READONLY}) is UNAVAILABLE: the script may have run, so its
 * values are lost. Jedis' pooled client is thread-safe and connects on first use.
 *
 * <p>Unless the URI says {@code persistence=unchecked}, no command runs before the server passed
 * the {@link PersistenceCheck} (AOF on, {@code appendfsync always}, or a warning logged once when
 * {@code CONFIG} is out of reach); every call is CORRUPT until it does, checked anew each time,
 * so fixing the server needs no restart here. The check runs again after the pool opened a
 * socket, so a reconnect to a restarted server is checked too.
 */
final class RedisRangeStore implements RangeStore {

    private static final System.Logger LOG =
            System.getLogger(RedisRangeStore.class.getName());

    /**
     * KEYS[1] the tag's hash; ARGV[1] the size, 0 for the stored step. Returns {status, ...}:
     * {"ok", next before, size taken}, {"unknown"}, {"wrongtype", error},
     * {"unreadable", next, step} or {"refused", error, next, size}. Numbers travel as strings
     * (Lua's are doubles, exact only up to 2^53), and no reply is nil or a Boolean, which RESP2
     * and RESP3 connections would receive differently.
     */
    private static final String ALLOCATE = """
            if redis.call('EXISTS', KEYS[1]) == 0 then return {'unknown'} end
            local v = redis.pcall('HMGET', KEYS[1], 'next', 'step')
            if v.err then return {'wrongtype', v.err} end
            local nxt, step = v[1], v[2]
            local s = step and string.match(step, '^[1-9]%d*$') and tonumber(step)
            if not (nxt and string.match(nxt, '^%d+$') and s and s <= 1099511627776) then
              return {'unreadable', tostring(nxt), tostring(step)}
            end
            local size = ARGV[1] == '0' and step or ARGV[1]
            local r = redis.pcall('HINCRBY', KEYS[1], 'next', size)
            if type(r) == 'table' then return {'refused', r.err, nxt, size} end
            return {'ok', nxt, size}
            """;
    /** KEYS[1] the tag's hash; ARGV[1] start, ARGV[2] step. Returns 1 if created, 0 if not. */
    private static final String CREATE = """
            if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
            redis.call('HSET', KEYS[1], 'next', ARGV[1], 'step', ARGV[2])
            return 1
            """;
    private static final String ALLOCATE_SHA = sha1(ALLOCATE);
    private static final String CREATE_SHA = sha1(CREATE);
    /** Keys per SCAN step and per pipelined batch of reads in {@link #tags()}. */
    private static final int BATCH = 500;

    private final RedisUri uri;
    private final String prefix;
    /** The hash of serial definitions, {@code <namespace>:serials}: a field per serial. */
    private final String serials;
    private final RedisClient client;
    /** Sockets the pool has opened: a new one may reach a server restarted on other settings. */
    private final AtomicLong sockets = new AtomicLong();
    /** The socket count when the persistence check last passed; -1 before. */
    private volatile long checkedAt = -1;
    /** Whether the persistence check's warning was logged: once per store, not per reconnect. */
    private final AtomicBoolean warned = new AtomicBoolean();

    RedisRangeStore(RedisUri uri) {
        this.uri = uri;
        this.prefix = uri.namespace() + ":segments:";
        this.serials = uri.namespace() + ":serials";
        int millis = (int) uri.timeout().toMillis();
        ConnectionPoolConfig pool = new ConnectionPoolConfig();
        pool.setMaxTotal(16);
        pool.setMaxWait(uri.timeout());
        DefaultJedisClientConfig.Builder config = DefaultJedisClientConfig.builder()
                .connectionTimeoutMillis(millis)
                .socketTimeoutMillis(millis)
                .clientName("idmint");
        if (uri.tls()) {
            // Jedis checks no host name by itself; JSSE does with this set.
            SSLParameters tls = new SSLParameters();
            tls.setEndpointIdentificationAlgorithm("HTTPS");
            config.ssl(true).sslParameters(tls);
        }
        if (uri.password() != null) {
            config.user(uri.user()).password(uri.password());
        }
        JedisClientConfig c = config.build();
        JedisSocketFactory plain = new DefaultJedisSocketFactory(
                new HostAndPort(uri.host(), uri.port()), c);
        JedisSocketFactory counted = () -> {
            sockets.incrementAndGet();
            return plain.createSocket();
        };
        this.client = RedisClient.builder().clientConfig(c).connectionProvider(
                new PooledConnectionProvider(new ConnectionFactory(counted, c), pool)).build();
    }

    @Override
    public Range allocate(String tag, long size) throws RegistryException {
        TagValue.checkAllocation(tag, size);
        String key = prefix + tag;
        List<?> r = (List<?>) script("allocation from segment tag " + tag, ALLOCATE_SHA, ALLOCATE,
                key, Long.toString(size));
        switch (text(r.get(0))) {
            case "ok" -> {
                long start = Long.parseLong(text(r.get(1)));
                return new Range(start, start + Long.parseLong(text(r.get(2))));
            }
            case "unknown" -> throw new UnknownTagException(tag, "segment tag '" + tag
                    + "' does not exist (Redis key " + key + " on " + uri + ")");
            case "wrongtype" -> throw new RegistryException(Kind.CORRUPT, "Redis key " + key
                    + " on " + uri + " is not a segment tag's hash: " + text(r.get(1)));
            case "unreadable" -> throw new RegistryException(Kind.CORRUPT, "Redis key " + key
                    + " on " + uri + " holds next '" + text(r.get(1)) + "' and step '"
                    + text(r.get(2)) + "', not a segment tag's (next >= 0, step 1 to 2^40)");
            default -> throw new RegistryException(Kind.CORRUPT, "segment tag '" + tag + "' at "
                    + text(r.get(2)) + " cannot take " + text(r.get(3)) + " more values: "
                    + text(r.get(1)) + " (Redis key " + key + " on " + uri + ")");
        }
    }

    @Override
    public void create(String tag, long start, long step) throws RegistryException {
        TagValue.created(tag, start, step);
        String key = prefix + tag;
        Object created = script("creation of segment tag " + tag, CREATE_SHA, CREATE, key,
                Long.toString(start), Long.toString(step));
        if (!Long.valueOf(1).equals(created)) {
            throw new RegistryException(Kind.CONFLICT, "segment tag '" + tag + "' exists already "
                    + "(Redis key " + key + " on " + uri + ")");
        }
    }

    @Override
    public List<TagInfo> tags() throws RegistryException {
        Map<String, TagInfo> out = new TreeMap<>();
        ScanParams match = new ScanParams().match(prefix + "*").count(BATCH);
        String cursor = ScanParams.SCAN_POINTER_START;
        do {
            String at = cursor;
            ScanResult<String> page = call("SCAN " + prefix + "*", () -> client.scan(at, match));
            read(page.getResult(), out);
            cursor = page.getCursor();
        } while (!cursor.equals(ScanParams.SCAN_POINTER_START));
        return new ArrayList<>(out.values());
    }

    /** Reads the tags of a page of keys (one pipelined round trip) into {@code out}. */
    private void read(List<String> keys, Map<String, TagInfo> out) throws RegistryException {
        if (keys.isEmpty()) {
            return;
        }
        Map<String, Response<List<String>>> replies = new TreeMap<>();
        call("HMGET of " + keys.size() + " segment tags", () -> {
            try (Pipeline p = client.pipelined()) {
                for (String k : keys) {
                    replies.put(k, p.hmget(k, "next", "step"));
                }
                p.sync();
            }
            return null;
        });
        for (Map.Entry<String, Response<List<String>>> e : replies.entrySet()) {
            String key = e.getKey();
            List<String> v;
            try {
                v = e.getValue().get();
            } catch (JedisDataException error) {
                boolean wrongType = String.valueOf(error.getMessage()).startsWith("WRONGTYPE");
                throw new RegistryException(wrongType ? Kind.CORRUPT : Kind.UNAVAILABLE,
                        "Redis key " + key + " on " + uri + (wrongType ? " is not a segment "
                        + "tag's hash: " : " could not be read: ") + error.getMessage(), error);
            }
            if (v.get(0) == null && v.get(1) == null) {
                continue; // deleted since the SCAN
            }
            String tag = key.substring(prefix.length());
            out.put(tag, new TagInfo(tag, number(key, "next", v.get(0), 0, Long.MAX_VALUE),
                    number(key, "step", v.get(1), 1, MAX_STEP)));
        }
    }

    @Override
    public void define(String name, String definition) throws RegistryException {
        TagValue.checkDefinition(name, definition);
        long set = call("HSETNX " + serials + " " + name,
                () -> client.hsetnx(serials, name, definition));
        if (set == 1) {
            return;
        }
        TagValue.requireSameDefinition(name, definition, definition(name),
                "Redis hash " + serials + " on " + uri);
    }

    @Override
    public String definition(String name) throws RegistryException {
        return call("HGET " + serials + " " + name, () -> client.hget(serials, name));
    }

    @Override
    public java.util.SortedMap<String, String> definitions() throws RegistryException {
        return new TreeMap<>(call("HGETALL " + serials, () -> client.hgetAll(serials)));
    }

    @Override
    public void close() {
        client.close();
    }

    /** Runs a script by its SHA-1, loading it with EVAL when the server does not have it. */
    private Object script(String what, String sha, String script, String key, String... args)
            throws RegistryException {
        List<String> keys = List.of(key);
        List<String> argv = List.of(args);
        return call(what, () -> {
            try {
                return client.evalsha(sha, keys, argv);
            } catch (JedisNoScriptException e) {
                // NOSCRIPT: nothing ran (a restarted server, or SCRIPT FLUSH).
                return client.eval(script, keys, argv);
            }
        });
    }

    /** Runs a command, after the persistence check when one is due. */
    private <T> T call(String what, Supplier<T> command) throws RegistryException {
        long opened = sockets.get();
        if (uri.checkPersistence() && opened != checkedAt) {
            // The check may open the first socket itself; the next call then checks once more.
            String refusal = send("INFO persistence and CONFIG GET appendfsync",
                    () -> PersistenceCheck.refusal(client, uri, this::warnOnce));
            if (refusal != null) {
                throw new RegistryException(Kind.CORRUPT, refusal);
            }
            checkedAt = opened;
        }
        return send(what, command);
    }

    private void warnOnce(String warning) {
        if (warned.compareAndSet(false, true)) {
            LOG.log(System.Logger.Level.WARNING, warning);
        }
    }

    private <T> T send(String what, Supplier<T> command) throws RegistryException {
        try {
            return command.get();
        } catch (JedisException e) {
            throw new RegistryException(Kind.UNAVAILABLE, uri + " failed " + what + ": "
                    + message(e), e);
        }
    }

    private long number(String key, String field, String value, long min, long max)
            throws RegistryException {
        try {
            long n = Long.parseLong(value);
            if (n >= min && n <= max) {
                return n;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new RegistryException(Kind.CORRUPT, "Redis key " + key + " on " + uri + " holds "
                + field + " '" + value + "', not a segment tag's (" + min + " to " + max + ")");
    }

    private static String text(Object o) {
        return o instanceof byte[] b ? new String(b, StandardCharsets.UTF_8) : String.valueOf(o);
    }

    private static String message(Throwable t) {
        Throwable root = t;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String m = t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
        return root == t || root.getMessage() == null ? m : m + " (" + root.getMessage() + ")";
    }

    private static String sha1(String script) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1")
                    .digest(script.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JVM has SHA-1", e);
        }
    }
}

package io.idmint.redis;

import java.util.Map;
import java.util.function.Consumer;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * Whether a Redis server keeps what it acknowledged across a restart, as a range store needs:
 * a server that forgets the latest {@code HINCRBY}s moves {@code next} back and hands out the
 * same IDs again. It must say {@code aof_enabled:1} in {@code INFO persistence}, and, where this
 * user may read it, {@code CONFIG GET appendfsync} must be {@code always}. A user that may not
 * run {@code CONFIG} (common on managed services, or the command renamed away) is taken on
 * {@code aof_enabled} alone, with a warning that names the risk; one that may not run
 * {@code INFO} is refused, since then nothing is known.
 *
 * <p>A refusal is {@link io.idmint.spi.RegistryException.Kind#CORRUPT CORRUPT}, not
 * UNAVAILABLE: the server answered, and retrying cannot help until an operator changes its
 * configuration (or opts out). UNAVAILABLE would have the caller wait and retry as if Redis were
 * down, and report that it "did not answer", hiding the cause; CORRUPT, like the store's other
 * states that need an operator, stops the caller and shows this message.
 */
final class PersistenceCheck {

    private static final String OPT_OUT = "; or, accepting that risk, skip this check with "
            + "persistence=unchecked in the store URI (redis://host:port/namespace"
            + "?persistence=unchecked)";

    private PersistenceCheck() {
    }

    /**
     * Why the server of {@code uri} must not serve ranges, or null when it may.
     *
     * @param warn told when the server may serve although {@code appendfsync} could not be read
     * @throws redis.clients.jedis.exceptions.JedisException when a command fails for any other
     *     reason than this user not being allowed to run it (or it being renamed away)
     */
    static String refusal(UnifiedJedis client, RedisUri uri, Consumer<String> warn) {
        String info;
        try {
            info = client.info("persistence");
        } catch (JedisDataException e) {
            if (!denied(e)) {
                throw e;
            }
            return "Redis at " + uri + " refuses INFO persistence (" + e.getMessage() + "), so "
                    + "whether it keeps allocations across a restart (appendonly yes, appendfsync "
                    + "always) is unknown. Let this user run it (ACL SETUSER <user> +info)"
                    + OPT_OUT;
        }
        String aof = field(info, "aof_enabled");
        if (aof == null) {
            return "Redis at " + uri + " reports no aof_enabled in INFO persistence, so whether "
                    + "it keeps allocations across a restart is unknown; a range store needs "
                    + "appendonly yes and appendfsync always" + OPT_OUT;
        }
        if (!aof.equals("1")) {
            return "Redis at " + uri + " has AOF persistence off (aof_enabled:" + aof + "): a "
                    + "restart would forget the latest allocations and hand out the same IDs "
                    + "again. Turn it on with appendonly yes and appendfsync always in redis.conf "
                    + "(at runtime: CONFIG SET appendonly yes, CONFIG SET appendfsync always, "
                    + "CONFIG REWRITE)" + OPT_OUT;
        }
        Map<String, String> config;
        try {
            config = client.configGet("appendfsync");
        } catch (JedisDataException e) {
            if (!denied(e)) {
                throw e;
            }
            // Taken on aof_enabled alone, as the README says: refusing would shut out managed
            // services that hide CONFIG. But Redis's default is everysec, so say what is at stake.
            warn.accept("Redis at " + uri + " refuses CONFIG GET appendfsync (" + e.getMessage()
                    + "), so whether it writes each allocation to disk before acknowledging it is "
                    + "unknown; it has AOF on (aof_enabled:1) and is used. Unless appendfsync is "
                    + "always (Redis's default is everysec), a machine crash or power loss can "
                    + "lose a range it acknowledged, and that range is then handed out again: "
                    + "duplicate IDs. Make sure the server has appendfsync always, or let this "
                    + "user read it (ACL SETUSER <user> +config|get) so that it is checked");
            return null;
        }
        String fsync = config.get("appendfsync");
        if (fsync != null && !fsync.equals("always")) {
            return "Redis at " + uri + " has appendfsync " + fsync + ", not always: it "
                    + "acknowledges allocations before they are on disk, so a machine crash or "
                    + "power loss can forget the latest and hand out the same IDs again. Set "
                    + "appendfsync always in redis.conf (at runtime: CONFIG SET appendfsync "
                    + "always, CONFIG REWRITE)" + OPT_OUT;
        }
        return null;
    }

    /** Whether the error says this user may not run the command, or the server lacks it. */
    private static boolean denied(JedisDataException e) {
        String m = String.valueOf(e.getMessage());
        return m.startsWith("NOPERM") || m.startsWith("ERR unknown command");
    }

    /** The value of {@code name:value} in an INFO reply, or null. */
    private static String field(String info, String name) {
        String prefix = name + ":";
        return info.lines().filter(l -> l.startsWith(prefix))
                .map(l -> l.substring(prefix.length()).trim()).findFirst().orElse(null);
    }
}

package io.idmint.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idmint.segment.RangeStores;
import io.idmint.spi.Range;
import io.idmint.spi.RangeStore;
import io.idmint.spi.RegistryException;
import io.idmint.spi.RegistryException.Kind;
import io.idmint.testkit.TestTime;
import io.idmint.testkit.fixture.RedisServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.assertj.core.api.AbstractThrowableAssert;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.args.ClientType;
import redis.clients.jedis.params.ClientKillParams;

/**
 * The store refuses a Redis that would forget allocations on restart (AOF off, or not fsynced
 * on every write), and serves one that keeps them, or any once the URI opts out. Each test
 * starts its own server; the servers that keep allocations are the other ITs'.
 */
class RedisPersistenceCheckIT {

    private static final String TAG = "order";
    private static final String KEY = "it:segments:" + TAG;

    private final List<AutoCloseable> opened = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        // Stores first, then their servers.
        for (int i = opened.size() - 1; i >= 0; i--) {
            opened.get(i).close();
        }
    }

    private RedisServer server(String... extra) throws Exception {
        RedisServer r = RedisServer.dedicated(extra).start();
        opened.add(r);
        return r;
    }

    private Warnings warnings() {
        Warnings w = new Warnings();
        opened.add(w);
        return w;
    }

    /** The warnings the store logs (java.util.logging, behind its System.Logger). */
    private static final class Warnings extends Handler implements AutoCloseable {

        final List<String> messages = new CopyOnWriteArrayList<>();
        private final Logger logger = Logger.getLogger(RedisRangeStore.class.getName());

        Warnings() {
            logger.addHandler(this);
        }

        @Override
        public void publish(LogRecord r) {
            if (r.getLevel() == Level.WARNING) {
                messages.add(r.getMessage());
            }
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
            logger.removeHandler(this);
        }
    }

    private RangeStore client(String uri) {
        RangeStore s = RangeStores.open(uri, Path.of("unused"));
        opened.add(s);
        return s;
    }

    @Test
    void everyCall_aofOff_isCorruptNamingServerAndFix_takesNothing_untilAofIsTurnedOn()
            throws Exception {
        RedisServer redis = server("appendonly no");
        RangeStore s = client(redis.uri("/it"));
        try (Jedis j = redis.jedis()) {
            j.hset(KEY, Map.of("next", "1", "step", "10"));
            for (ThrowingCallable call : List.<ThrowingCallable>of(() -> s.allocate(TAG, 5),
                    () -> s.allocate(TAG, RangeStore.TAG_STEP), () -> s.create("other", 1, 10),
                    s::tags)) {
                assertRefused(call, "127.0.0.1:" + redis.port())
                        .hasMessageContaining("AOF persistence off (aof_enabled:0)")
                        .hasMessageContaining("appendonly yes")
                        .hasMessageContaining("appendfsync always")
                        .hasMessageContaining("persistence=unchecked");
            }
            assertThat(j.hgetAll(KEY)).isEqualTo(Map.of("next", "1", "step", "10"));
            assertThat(j.exists("it:segments:other")).isFalse();

            // Checked anew on each call while refused: fixing the server needs no restart here.
            j.configSet("appendonly", "yes");
            awaitAofWritten(j);
            assertThat(s.allocate(TAG, 5)).isEqualTo(new Range(1, 6));
        }
    }

    @Test
    void allocate_appendfsyncEverysec_isCorruptNamingIt_andTakesNothing() throws Exception {
        RedisServer redis = server("appendfsync everysec");
        RangeStore s = client(redis.uri("/it"));
        try (Jedis j = redis.jedis()) {
            j.hset(KEY, Map.of("next", "1", "step", "10"));
            assertRefused(() -> s.allocate(TAG, 5), "127.0.0.1:" + redis.port())
                    .hasMessageContaining("appendfsync everysec, not always")
                    .hasMessageContaining("persistence=unchecked");
            assertThat(j.hget(KEY, "next")).isEqualTo("1");
        }
    }

    @Test
    void persistenceUnchecked_servesAServerWithoutAof() throws Exception {
        RedisServer redis = server("appendonly no", "appendfsync everysec");
        RangeStore s = client(redis.uri("/it?timeout=2s&persistence=unchecked"));
        s.create(TAG, 1, 10);
        assertThat(s.allocate(TAG, RangeStore.TAG_STEP)).isEqualTo(new Range(1, 11));
        assertThat(s.tags()).hasSize(1);
    }

    @Test
    void allocate_userMayNotRunInfo_isCorruptNamingTheOptOut() throws Exception {
        RedisServer redis = server();
        try (Jedis j = redis.jedis()) {
            j.aclSetUser("ids", "on", ">pw", "~*", "+@all", "-info");
        }
        RangeStore s = client("redis://ids:pw@127.0.0.1:" + redis.port() + "/it");
        assertRefused(() -> s.allocate(TAG, 5), "127.0.0.1:" + redis.port())
                .hasMessageContaining("refuses INFO persistence (NOPERM")
                .hasMessageContaining("+info")
                .hasMessageContaining("persistence=unchecked");
        RangeStore unchecked = client("redis://ids:pw@127.0.0.1:" + redis.port()
                + "/it?persistence=unchecked");
        unchecked.create(TAG, 1, 10);
        assertThat(unchecked.allocate(TAG, 5)).isEqualTo(new Range(1, 6));
    }

    @Test
    void allocate_userMayNotRunConfig_isTakenOnAofEnabledAlone_withAWarningNamingTheRisk()
            throws Exception {
        // everysec would be refused if the store could read it: the README's stated limit.
        RedisServer redis = server("appendfsync everysec");
        try (Jedis j = redis.jedis()) {
            j.aclSetUser("ids", "on", ">pw", "~*", "+@all", "-config");
        }
        Warnings warnings = warnings();
        RangeStore s = client("redis://ids:pw@127.0.0.1:" + redis.port() + "/it");
        s.create(TAG, 1, 10);
        assertThat(s.allocate(TAG, 5)).isEqualTo(new Range(1, 6));
        assertThat(warnings.messages).singleElement().asString()
                .contains("127.0.0.1:" + redis.port() + "/it refuses CONFIG GET appendfsync "
                        + "(NOPERM")
                .contains("duplicate IDs").contains("appendfsync always")
                .contains("+config|get");
    }

    @Test
    void allocate_configRenamedAway_isServedWithOneWarningNamingTheRisk() throws Exception {
        RedisServer redis = server("appendfsync everysec", "rename-command CONFIG \"\"");
        Warnings warnings = warnings();
        RangeStore s = client(redis.uri("/it"));
        s.create(TAG, 1, 10);
        assertThat(s.allocate(TAG, 5)).isEqualTo(new Range(1, 6));
        assertThat(s.allocate(TAG, 5)).isEqualTo(new Range(6, 11));
        assertThat(warnings.messages).singleElement().asString()
                .startsWith("Redis at redis://127.0.0.1:" + redis.port() + "/it refuses CONFIG "
                        + "GET appendfsync (ERR unknown command")
                .contains("a machine crash or power loss can lose a range it acknowledged, and "
                        + "that range is then handed out again: duplicate IDs")
                .contains("appendfsync always");
    }

    @Test
    void allocate_afterAReconnect_checksAgain() throws Exception {
        RedisServer redis = server();
        RangeStore s = client(redis.uri("/it?timeout=2s"));
        s.create(TAG, 1, 10);
        assertThat(s.allocate(TAG, 5)).isEqualTo(new Range(1, 6));
        try (Jedis j = redis.jedis()) {
            j.configSet("appendfsync", "everysec");
            // Checked once per connection, not per call: the open connections go on.
            assertThat(s.allocate(TAG, 5)).isEqualTo(new Range(6, 11));
            assertThat(j.clientKill(new ClientKillParams().type(ClientType.NORMAL)))
                    .isPositive();
            long deadline = TestTime.deadline(Duration.ofSeconds(10));
            RegistryException e = null;
            while (e == null || e.kind() != Kind.CORRUPT) {
                assertThat(System.nanoTime()).as("no refusal after the reconnect")
                        .isLessThan(deadline);
                try {
                    s.allocate(TAG, 5);
                    throw new AssertionError("allocated after the reconnect to an everysec server");
                } catch (RegistryException failed) {
                    e = failed; // a killed pooled connection fails once as UNAVAILABLE
                }
            }
            assertThat(e).hasMessageContaining("appendfsync everysec");
            assertThat(j.hget(KEY, "next")).isEqualTo("11");
        }
    }

    /**
     * Waits for the AOF that {@code CONFIG SET appendonly yes} starts writing: until it is
     * written, Redis 6.2 ignores the SIGTERM that stops it.
     */
    private static void awaitAofWritten(Jedis j) throws InterruptedException {
        long deadline = TestTime.deadline(Duration.ofSeconds(10));
        String info = j.info("persistence");
        while (!info.contains("aof_rewrite_in_progress:0")
                || !info.contains("aof_rewrite_scheduled:0")) {
            assertThat(System.nanoTime()).as(info).isLessThan(deadline);
            Thread.sleep(20);
            info = j.info("persistence");
        }
    }

    private static AbstractThrowableAssert<?, ? extends Throwable> assertRefused(
            ThrowingCallable call, String server) {
        AbstractThrowableAssert<?, ? extends Throwable> refused = assertThatThrownBy(call)
                .isInstanceOf(RegistryException.class).hasMessageContaining(server);
        refused.extracting(e -> ((RegistryException) e).kind()).isEqualTo(Kind.CORRUPT);
        return refused;
    }
}

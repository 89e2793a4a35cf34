package io.idmint.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idmint.segment.RangeStores;
import io.idmint.spi.Range;
import io.idmint.spi.RangeStore;
import io.idmint.spi.RegistryException;
import io.idmint.spi.RegistryException.Kind;
import io.idmint.spi.TagInfo;
import io.idmint.spi.UnknownTagException;
import io.idmint.testkit.IdOracle;
import io.idmint.testkit.TestTime;
import io.idmint.testkit.fixture.RedisServer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.commands.ProtocolCommand;
import redis.clients.jedis.exceptions.JedisConnectionException;

/**
 * Redis specifics against a real server: what is stored, a missing tag never created, unreadable
 * and overflowing values, the script cache flushed, a crash and restart on the AOF, an answer
 * that times out after the script ran, and passwords.
 */
class RedisRangeStoreIT {

    private static final ProtocolCommand DEBUG = () -> "DEBUG".getBytes(StandardCharsets.UTF_8);

    /** Killed and restarted by a test. */
    @RegisterExtension
    static final RedisServer redis = RedisServer.dedicated();

    private final String tag = "t" + UUID.randomUUID().toString().substring(0, 8);
    private final String key = "it:segments:" + tag;
    private final List<RangeStore> opened = new ArrayList<>();

    @AfterEach
    void closeClients() {
        opened.forEach(RangeStore::close);
    }

    private RangeStore client(String uri) {
        RangeStore s = RangeStores.open(uri, Path.of("unused"));
        opened.add(s);
        return s;
    }

    private RangeStore client() {
        return client(redis.uri("/it?timeout=2s"));
    }

    @Test
    void create_storesAHashWithNextAndStep_andAllocateMovesNext() throws Exception {
        RangeStore s = client();
        s.create(tag, 7, 100);
        s.allocate(tag, RangeStore.TAG_STEP);
        s.allocate(tag, 3);
        try (Jedis j = redis.jedis()) {
            assertThat(j.hgetAll(key)).isEqualTo(Map.of("next", "110", "step", "100"));
        }
        assertThat(s.tags()).contains(new TagInfo(tag, 110, 100));
    }

    @Test
    void allocate_unknownTag_createsNothing() {
        assertThatThrownBy(() -> client().allocate(tag, 10))
                .isInstanceOf(UnknownTagException.class).hasMessageContaining(key);
        try (Jedis j = redis.jedis()) {
            assertThat(j.exists(key)).isFalse();
        }
    }

    @Test
    void allocate_unreadableValues_areCorrupt_andTakeNothing() throws Exception {
        RangeStore s = client();
        try (Jedis j = redis.jedis()) {
            j.set(key, "17");
            assertCorrupt(() -> s.allocate(tag, 1), "WRONGTYPE");
            assertCorrupt(s::tags, "is not a segment tag's hash");
            assertThat(j.get(key)).isEqualTo("17");
            j.del(key);
            j.hset(key, Map.of("next", "12x", "step", "10"));
            assertCorrupt(() -> s.allocate(tag, 1), "'12x'");
            assertCorrupt(s::tags, "'12x'");
            j.hset(key, Map.of("next", "12", "step", "0"));
            assertCorrupt(() -> s.allocate(tag, RangeStore.TAG_STEP), "step '0'");
            assertThat(j.hget(key, "next")).isEqualTo("12");
            j.del(key);
        }
    }

    @Test
    void allocate_afterScriptFlush_loadsTheScriptAgain() throws Exception {
        RangeStore s = client();
        s.create(tag, 1, 10);
        assertThat(s.allocate(tag, 10)).isEqualTo(new Range(1, 11));
        try (Jedis j = redis.jedis()) {
            j.scriptFlush();
        }
        assertThat(s.allocate(tag, 10)).isEqualTo(new Range(11, 21));
    }

    @Test
    void allocate_answerTimedOutButScriptRan_isUnavailable_andThoseValuesAreNeverHandedOut()
            throws Exception {
        RangeStore s = client(redis.uri("/it?timeout=300ms"));
        s.create(tag, 1, 10);
        assertThat(s.allocate(tag, 10)).isEqualTo(new Range(1, 11));
        // The server sleeps 3 s; our script waits in its queue, then runs after the timeout.
        CompletableFuture<Void> sleep = CompletableFuture.runAsync(() -> {
            try (Jedis j = redis.jedis()) {
                j.ping(); // connected, so that the longer timeout applies to its socket
                j.getConnection().setSoTimeout(10_000); // the answer comes after the 3 s
                j.sendCommand(DEBUG, "SLEEP", "3");
            }
        });
        awaitAsleep();
        assertUnavailable(() -> s.allocate(tag, 10));
        sleep.join();
        // [11, 21) was taken by the script that timed out: lost, not reused.
        assertThat(s.allocate(tag, 10)).isEqualTo(new Range(21, 31));
    }

    @Test
    void allocate_serverKilled_isUnavailable_thenRestartedOnItsAof_goesOnAboveEverything()
            throws Exception {
        RangeStore s = client();
        s.create(tag, 1, 10);
        List<Range> before = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            before.add(s.allocate(tag, 100));
        }
        long top = IdOracle.assertDisjointRanges(before);

        redis.kill();
        long start = System.nanoTime();
        assertUnavailable(() -> s.allocate(tag, 100));
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));

        redis.restart();
        Range after = null;
        long deadline = TestTime.deadline(Duration.ofSeconds(10));
        while (after == null) {
            try {
                after = s.allocate(tag, 100);
            } catch (RegistryException e) {
                // a pooled connection to the dead server fails once
                assertThat(System.nanoTime()).as(e.getMessage()).isLessThan(deadline);
            }
        }
        assertThat(after.start()).isGreaterThanOrEqualTo(top);
        assertThat(client().allocate(tag, 100).start()).isGreaterThanOrEqualTo(after.end());
    }

    @Test
    void password_rightOneWorks_wrongOneIsUnavailable_namingNoPassword() throws Exception {
        try (RedisServer locked = RedisServer.dedicated("requirepass p@ss:w/rd").start()) {
            String base = "redis://" + "%s" + "127.0.0.1:" + locked.port() + "/it?timeout=2s";
            RangeStore right = client(String.format(base, ":p%40ss%3Aw%2Frd@"));
            right.create(tag, 1, 10);
            assertThat(right.allocate(tag, 5)).isEqualTo(new Range(1, 6));
            RangeStore defaultUser = client(String.format(base, "default:p%40ss%3Aw%2Frd@"));
            assertThat(defaultUser.allocate(tag, 5)).isEqualTo(new Range(6, 11));
            RangeStore wrong = client(String.format(base, ":nope@"));
            assertThatThrownBy(() -> wrong.allocate(tag, 5))
                    .isInstanceOf(RegistryException.class)
                    .hasMessageNotContaining("nope")
                    .extracting(e -> ((RegistryException) e).kind()).isEqualTo(Kind.UNAVAILABLE);
            RangeStore none = client(String.format(base, ""));
            assertUnavailable(() -> none.allocate(tag, 5));
            opened.forEach(RangeStore::close); // before the server goes
            opened.clear();
        }
    }

    @Test
    void rediss_againstAPlainServer_isUnavailable() {
        RangeStore s = client("rediss://127.0.0.1:" + redis.port() + "/it?timeout=500ms");
        assertUnavailable(() -> s.allocate(tag, 1));
    }

    /**
     * Waits until the server is inside DEBUG SLEEP: it answers PINGs on another connection until
     * then, and none while it sleeps. A PING unanswered for 1 s is taken as asleep: a merely slow
     * answer on a loaded machine is far quicker than that, and the 3 s sleep then has at least
     * 2 s to run, far above the 300 ms timeout of the allocate that follows.
     */
    private static void awaitAsleep() {
        long deadline = TestTime.deadline(Duration.ofSeconds(10));
        while (true) {
            try (Jedis probe = new Jedis("127.0.0.1", redis.port(), 1000)) {
                probe.ping();
            } catch (JedisConnectionException asleep) {
                return;
            }
            assertThat(System.nanoTime()).as("DEBUG SLEEP never began").isLessThan(deadline);
        }
    }

    private static void assertUnavailable(ThrowingCallable call) {
        assertThatThrownBy(call).isInstanceOf(RegistryException.class)
                .extracting(e -> ((RegistryException) e).kind()).isEqualTo(Kind.UNAVAILABLE);
    }

    private static void assertCorrupt(ThrowingCallable call, String message) {
        assertThatThrownBy(call).isInstanceOf(RegistryException.class)
                .hasMessageContaining(message)
                .extracting(e -> ((RegistryException) e).kind()).isEqualTo(Kind.CORRUPT);
    }
}

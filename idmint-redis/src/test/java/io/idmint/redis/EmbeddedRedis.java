package io.idmint.redis;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import redis.clients.jedis.Jedis;
import redis.embedded.RedisServer;
import redis.embedded.core.RedisServerBuilder;

/**
 * A real Redis server for tests (embedded-redis' bundled {@code redis-server} 6.2) on a free
 * 127.0.0.1 port, persistent as a range store must be: AOF on, fsync on every write, data in a
 * temporary directory that survives {@link #kill()} and {@link #restart()}. {@link #close()}
 * stops it and deletes the data.
 */
final class EmbeddedRedis implements AutoCloseable {

    private final int port;
    private final Path dir;
    private final List<String> settings;
    private RedisServer server;

    private EmbeddedRedis(List<String> extra) throws IOException {
        port = io.idmint.testkit.LocalProcesses.freePort();
        dir = Files.createTempDirectory("idmint-redis-");
        settings = new ArrayList<>(List.of("appendonly yes", "appendfsync always",
                "dir " + dir, "save \"\""));
        settings.addAll(extra);
    }

    /**
     * Starts a server with the persistence settings and any {@code extra} config lines, which
     * come after them and so win: {@code "appendonly no"} starts one that forgets on restart.
     */
    static EmbeddedRedis start(String... extra) {
        try {
            EmbeddedRedis r = new EmbeddedRedis(List.of(extra));
            r.launch();
            return r;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    int port() {
        return port;
    }

    /** {@code redis://127.0.0.1:port} followed by {@code rest} (path and query). */
    String uri(String rest) {
        return "redis://127.0.0.1:" + port + rest;
    }

    /** A plain client, for looking behind the store's back; the caller closes it. */
    Jedis jedis() {
        Jedis j = new Jedis("127.0.0.1", port);
        for (String s : settings) {
            if (s.startsWith("requirepass ")) {
                j.auth(s.substring("requirepass ".length()));
            }
        }
        return j;
    }

    /** Kills the server at once (SIGKILL, by the process ID it reports), as a crash would. */
    void kill() {
        long pid;
        try (Jedis j = jedis()) {
            pid = Long.parseLong(j.info("server").lines()
                    .filter(l -> l.startsWith("process_id:")).findFirst().orElseThrow()
                    .substring("process_id:".length()).trim());
        }
        ProcessHandle p = ProcessHandle.of(pid).orElseThrow();
        p.destroyForcibly();
        try {
            p.onExit().get(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("redis-server " + pid + " did not die", e);
        }
        stopQuietly();
    }

    /** Starts the server again on its port and data. */
    void restart() {
        try {
            launch();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        stopQuietly();
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // a temporary directory; nothing to do
        }
    }

    private void launch() throws IOException {
        RedisServerBuilder b = RedisServer.newRedisServer().bind("127.0.0.1").port(port);
        settings.forEach(b::setting);
        server = b.build();
        server.start();
    }

    private void stopQuietly() {
        if (server != null) {
            try {
                server.stop();
            } catch (IOException e) {
                // already gone
            }
            server = null;
        }
    }

    @Override
    public String toString() {
        return "redis-server 127.0.0.1:" + port + " (data in " + dir + ")";
    }
}

package io.idmint.redis;

import io.idmint.spi.RangeStore;
import io.idmint.spi.RangeStoreProvider;
import java.nio.file.Path;
import java.util.List;

/**
 * Serves {@code redis://[[user]:password@]host[:port][/namespace][?timeout=2s]} for segments: one
 * hash per tag, {@code <namespace>:segments:<tag>}, on a standalone Redis (see {@link RedisUri}).
 * {@code rediss://} is the same over TLS. Opening parses the URI at once and connects on first
 * use, where the store refuses a server without AOF persistence unless the URI adds
 * {@code persistence=unchecked}.
 */
public final class RedisRangeStoreProvider implements RangeStoreProvider {

    @Override
    public String scheme() {
        return "redis";
    }

    @Override
    public List<String> schemes() {
        return List.of("redis", "rediss");
    }

    @Override
    public RangeStore open(String uri, Path dataDir) {
        return new RedisRangeStore(RedisUri.parse(uri));
    }
}

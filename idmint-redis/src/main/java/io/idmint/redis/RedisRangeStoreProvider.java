package io.idmint.redis;

import io.idmint.spi.RangeStore;
import io.idmint.spi.RangeStoreProvider;
import java.nio.file.Path;

/**
 * Serves {@code redis://[[user]:password@]host[:port][/namespace][?timeout=2s]} for segments: one
 * hash per tag, {@code <namespace>:segments:<tag>}, on a standalone Redis (see {@link RedisUri}).
 * {@link Tls} serves {@code rediss://}. Opening parses the URI at once and connects on first use,
 * where the store refuses a server without AOF persistence unless the URI adds
 * {@code persistence=unchecked}.
 */
public class RedisRangeStoreProvider implements RangeStoreProvider {

    @Override
    public String scheme() {
        return "redis";
    }

    @Override
    public RangeStore open(String uri, Path dataDir) {
        return new RedisRangeStore(RedisUri.parse(uri));
    }

    /** The same store over TLS: {@code rediss://…}. */
    public static final class Tls extends RedisRangeStoreProvider {

        @Override
        public String scheme() {
            return "rediss";
        }
    }
}

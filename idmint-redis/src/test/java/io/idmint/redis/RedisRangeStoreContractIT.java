package io.idmint.redis;

import io.idmint.segment.RangeStores;
import io.idmint.spi.RangeStore;
import io.idmint.testkit.RangeStoreContract;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The range store contract against a real Redis server. */
class RedisRangeStoreContractIT extends RangeStoreContract {

    private static EmbeddedRedis redis;

    @BeforeAll
    static void startRedis() {
        redis = EmbeddedRedis.start();
    }

    @AfterAll
    static void stopRedis() {
        redis.close();
    }

    @Override
    protected RangeStore newClient() {
        return RangeStores.open(redis.uri("/contract?timeout=5s"), Path.of("unused"));
    }
}

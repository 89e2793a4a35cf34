package io.idmint.redis;

import io.idmint.segment.RangeStores;
import io.idmint.spi.RangeStore;
import io.idmint.testkit.RangeStoreContract;
import io.idmint.testkit.fixture.RedisServer;
import java.nio.file.Path;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The range store contract against a real Redis server. */
class RedisRangeStoreContractIT extends RangeStoreContract {

    @RegisterExtension
    static final RedisServer redis = RedisServer.shared();

    @Override
    protected RangeStore newClient() {
        return RangeStores.open(redis.uri("/" + redis.namespace() + "?timeout=5s"),
                Path.of("unused"));
    }
}

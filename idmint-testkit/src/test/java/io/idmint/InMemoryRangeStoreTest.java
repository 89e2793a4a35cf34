package io.idmint;

import io.idmint.spi.RangeStore;
import io.idmint.testkit.InMemoryRangeStore;
import io.idmint.testkit.RangeStoreContract;

class InMemoryRangeStoreTest extends RangeStoreContract {

    private final InMemoryRangeStore store = new InMemoryRangeStore();

    @Override
    protected RangeStore newClient() {
        return store;
    }
}

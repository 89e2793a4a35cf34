package io.idmint.testkit;

import io.idmint.spi.RangeStore;

class InMemoryRangeStoreTest extends RangeStoreContract {

    private final InMemoryRangeStore store = new InMemoryRangeStore();

    @Override
    protected RangeStore newClient() {
        return store;
    }
}

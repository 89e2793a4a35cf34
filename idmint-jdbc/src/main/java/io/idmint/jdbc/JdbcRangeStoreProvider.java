package io.idmint.jdbc;

import io.idmint.spi.RangeStore;
import io.idmint.spi.RangeStoreProvider;
import java.nio.file.Path;

/** Serves {@code jdbc:…} segment store URIs; see {@link JdbcRangeStores} for the syntax. */
public final class JdbcRangeStoreProvider implements RangeStoreProvider {

    @Override
    public String scheme() {
        return "jdbc";
    }

    /** The data directory anchors a relative H2 path such as {@code jdbc:h2:file:segments}. */
    @Override
    public RangeStore open(String uri, Path dataDir) {
        return JdbcRangeStores.open(uri, dataDir);
    }
}

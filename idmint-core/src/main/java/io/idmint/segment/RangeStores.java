package io.idmint.segment;

import io.idmint.spi.RangeStore;
import io.idmint.spi.RangeStoreProvider;
import io.idmint.spi.support.Providers;
import java.nio.file.Path;
import java.util.List;

/** Opens segment range stores by URI scheme, through the {@link RangeStoreProvider}s found. */
public final class RangeStores {

    private RangeStores() {
    }

    /**
     * Opens the store a URI names: any scheme a {@link RangeStoreProvider} on the class path
     * serves ({@code jdbc:…}, {@code redis://…}, {@code etcd://…}, {@code zk://…}).
     *
     * @throws IllegalArgumentException when the URI is malformed or no provider serves its scheme
     */
    public static RangeStore open(String uri, Path dataDir) {
        String scheme = Providers.schemeOf(uri, "segment store", "jdbc:h2:…, "
                + "jdbc:postgresql://…, redis://host:6379/ns, etcd://host:2379/ns or "
                + "zk://host:2181/ns");
        return Providers.find(RangeStoreProvider.class, RangeStoreProvider::schemes, scheme,
                List.of(), "segment store", uri).open(uri, dataDir);
    }
}

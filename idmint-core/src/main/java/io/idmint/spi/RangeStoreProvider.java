package io.idmint.spi;

import java.nio.file.Path;
import java.util.List;

/**
 * Opens a {@link RangeStore} for the URIs of its schemes. Listed in
 * {@code META-INF/services/io.idmint.spi.RangeStoreProvider}.
 */
public interface RangeStoreProvider {

    /**
     * The main URI scheme this provider serves, e.g. {@code redis} for
     * {@code redis://host:6379/ns}.
     */
    String scheme();

    /**
     * Every URI scheme this provider serves, {@link #scheme()} first: override it when one
     * provider serves more than one, e.g. {@code redis} and {@code rediss} (over TLS).
     */
    default List<String> schemes() {
        return List.of(scheme());
    }

    /**
     * Opens a store.
     *
     * @param uri the store URI, of one of this provider's schemes
     * @param dataDir the node's local data directory (for stores that keep local files, such as
     *     the embedded H2 default)
     * @throws IllegalArgumentException naming the bad part of the URI
     */
    RangeStore open(String uri, Path dataDir);
}

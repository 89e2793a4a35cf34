package io.idmint.spi;

import java.nio.file.Path;

/**
 * Opens a {@link RangeStore} for the URIs of one scheme. Listed in
 * {@code META-INF/services/io.idmint.spi.RangeStoreProvider}.
 */
public interface RangeStoreProvider {

    /** The URI scheme this provider serves, e.g. {@code redis} for {@code redis://host:6379/ns}. */
    String scheme();

    /**
     * Opens a store.
     *
     * @param uri the store URI, of this provider's scheme
     * @param dataDir the node's local data directory (for stores that keep local files, such as
     *     the embedded H2 default)
     * @throws IllegalArgumentException naming the bad part of the URI
     */
    RangeStore open(String uri, Path dataDir);
}

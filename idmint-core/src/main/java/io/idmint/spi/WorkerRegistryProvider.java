package io.idmint.spi;

import java.nio.file.Path;

/**
 * Opens a {@link WorkerRegistry} for the URIs of one scheme. Listed in
 * {@code META-INF/services/io.idmint.spi.WorkerRegistryProvider}.
 */
public interface WorkerRegistryProvider {

    /** The URI scheme this provider serves, e.g. {@code etcd} for {@code etcd://host:2379/ns}. */
    String scheme();

    /**
     * Opens a registry.
     *
     * @param uri the registry URI, of this provider's scheme
     * @param dataDir the node's local data directory (for registries that keep local state)
     * @throws IllegalArgumentException naming the bad part of the URI
     */
    WorkerRegistry open(String uri, Path dataDir);
}

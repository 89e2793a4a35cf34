package io.idmint.spi;

import java.nio.file.Path;
import java.util.List;

/**
 * Opens a {@link WorkerRegistry} for the URIs of its schemes. Listed in
 * {@code META-INF/services/io.idmint.spi.WorkerRegistryProvider}.
 */
public interface WorkerRegistryProvider {

    /**
     * The main URI scheme this provider serves, e.g. {@code etcd} for {@code etcd://host:2379/ns}.
     */
    String scheme();

    /**
     * Every URI scheme this provider serves, {@link #scheme()} first: override it when one
     * provider serves more than one, e.g. {@code etcd} and {@code etcds} (over TLS).
     */
    default List<String> schemes() {
        return List.of(scheme());
    }

    /**
     * Opens a registry.
     *
     * @param uri the registry URI, of one of this provider's schemes
     * @param dataDir the node's local data directory (for registries that keep local state)
     * @throws IllegalArgumentException naming the bad part of the URI
     */
    WorkerRegistry open(String uri, Path dataDir);
}

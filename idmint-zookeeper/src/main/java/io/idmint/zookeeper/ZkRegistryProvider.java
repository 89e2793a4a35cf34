package io.idmint.zookeeper;

import io.idmint.spi.WorkerRegistry;
import io.idmint.spi.WorkerRegistryProvider;
import java.nio.file.Path;
import java.util.List;

/**
 * Serves {@code zk://host:port[,host:port…][/chroot][?timeout=5s&session=30s]}: worker IDs leased
 * from a ZooKeeper ensemble through Curator ({@code zks://} over TLS). See {@link ZkUri} for the
 * options.
 */
public final class ZkRegistryProvider implements WorkerRegistryProvider {

    @Override
    public String scheme() {
        return "zk";
    }

    @Override
    public List<String> schemes() {
        return List.of("zk", "zks");
    }

    /** Parses the URI at once; the ZooKeeper client starts with the first registry call. */
    @Override
    public WorkerRegistry open(String uri, Path dataDir) {
        return new ZkRegistry(ZkUri.parse(uri), dataDir);
    }
}

package io.idmint.zookeeper;

import io.idmint.spi.RangeStore;
import io.idmint.spi.RangeStoreProvider;
import java.nio.file.Path;
import java.util.List;

/**
 * Serves {@code zk://host:port[,host:port…][/chroot][?timeout=5s]} for segments: one persistent
 * znode per tag under {@code <chroot>/segments}, the same URI form and client as the worker
 * registry ({@code zks://} over TLS). See {@link ZkUri} for the options.
 */
public final class ZkRangeStoreProvider implements RangeStoreProvider {

    @Override
    public String scheme() {
        return "zk";
    }

    @Override
    public List<String> schemes() {
        return List.of("zk", "zks");
    }

    /** Parses the URI at once; the ZooKeeper client starts with the first call. */
    @Override
    public RangeStore open(String uri, Path dataDir) {
        ZkUri parsed = ZkUri.parse(uri);
        if (parsed.leafName() != null) {
            throw new IllegalArgumentException("ZooKeeper URI '" + uri + "': leaf-name is an "
                    + "option of the worker registry (registry=), not of the segment store");
        }
        return new ZkRangeStore(parsed);
    }
}

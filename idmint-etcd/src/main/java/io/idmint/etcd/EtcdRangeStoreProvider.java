package io.idmint.etcd;

import io.idmint.spi.RangeStore;
import io.idmint.spi.RangeStoreProvider;
import java.nio.file.Path;
import java.util.List;

/**
 * Serves {@code etcd://host:port[,host:port…][/key/prefix][?timeout=2s]} ({@code etcds://} over
 * TLS) for segments: one key per tag under {@code <prefix>/segments/}, the same URI form and
 * client as the worker registry. Opening connects lazily.
 */
public final class EtcdRangeStoreProvider implements RangeStoreProvider {

    @Override
    public String scheme() {
        return "etcd";
    }

    @Override
    public List<String> schemes() {
        return List.of("etcd", "etcds");
    }

    @Override
    public RangeStore open(String uri, Path dataDir) {
        EtcdUri parsed = EtcdUri.parse(uri);
        return new EtcdRangeStore(new EtcdStore(parsed), parsed.prefix());
    }
}

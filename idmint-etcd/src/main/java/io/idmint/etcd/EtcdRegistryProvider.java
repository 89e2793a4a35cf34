package io.idmint.etcd;

import io.idmint.spi.WorkerRegistry;
import io.idmint.spi.WorkerRegistryProvider;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;

/**
 * Serves {@code etcd://host:port[,host:port…][/key/prefix][?timeout=2s]} ({@code etcds://} over
 * TLS): worker leases on an etcd v3 cluster (key prefix default {@code /idmint}, per-call timeout
 * default 2 s). Opening connects lazily, so a node can start while etcd is still away; it stays
 * NOT READY until then.
 */
public final class EtcdRegistryProvider implements WorkerRegistryProvider {

    @Override
    public String scheme() {
        return "etcd";
    }

    @Override
    public List<String> schemes() {
        return List.of("etcd", "etcds");
    }

    @Override
    public WorkerRegistry open(String uri, Path dataDir) {
        EtcdUri parsed = EtcdUri.parse(uri);
        return new EtcdRegistry(new EtcdStore(parsed), parsed.prefix(), Clock.systemUTC());
    }
}

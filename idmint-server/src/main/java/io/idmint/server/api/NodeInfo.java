package io.idmint.server.api;

import io.idmint.server.config.Config;
import io.idmint.server.ops.BuildInfo;
import io.idmint.spi.support.Providers;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.UUID;

/**
 * Who this server is, for the status page and {@code /api/v1/status}: an ID per process (so a
 * node that finds itself among its {@code static.peers} skips itself), a name for messages (host
 * and data directory), the version, the start time, and the registry (credentials redacted) and
 * namespace it leases from.
 */
public record NodeInfo(String id, String name, String version, long startedMillis, String registry,
        String namespace) {

    public static NodeInfo of(Config config, long nowMillis) {
        String host;
        try {
            host = InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            host = "unknown host";
        }
        String version;
        try {
            version = BuildInfo.versionLine();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new NodeInfo(UUID.randomUUID().toString(), host + ", data dir "
                + config.get(Config.DATA_DIR).toAbsolutePath().normalize(), version, nowMillis,
                Providers.redact(config.get(Config.REGISTRY)), config.get(Config.NAMESPACE));
    }
}

package io.idmint.jdbc;

import io.idmint.spi.WorkerRegistry;
import io.idmint.spi.WorkerRegistryProvider;
import java.nio.file.Path;

/** Serves {@code jdbc:…} registry URIs; see {@link JdbcRegistries} for the syntax. */
public final class JdbcRegistryProvider implements WorkerRegistryProvider {

    @Override
    public String scheme() {
        return "jdbc";
    }

    /** The data directory is not used: all state lives in the database. */
    @Override
    public WorkerRegistry open(String uri, Path dataDir) {
        return JdbcRegistries.open(uri);
    }
}

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

    /**
     * All state lives in the database; the data directory only anchors an implicitly relative
     * H2 path ({@code jdbc:h2:file:registry} is {@code <dataDir>/registry.mv.db}).
     */
    @Override
    public WorkerRegistry open(String uri, Path dataDir) {
        return new JdbcRegistry(JdbcConfig.parse(JdbcConfig.Use.REGISTRY, uri, System.getenv(),
                dataDir));
    }
}

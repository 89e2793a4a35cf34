package io.idmint;

import io.idmint.spi.WorkerRegistry;
import io.idmint.spi.WorkerRegistryProvider;
import io.idmint.spi.support.Providers;
import java.nio.file.Path;
import java.util.List;

/** Opens worker registries: the built-in {@code static:} one, or a backend found by URI scheme. */
public final class WorkerRegistries {

    private WorkerRegistries() {
    }

    /**
     * The {@code static:} registry: worker IDs and their high-water marks in {@code dataDir},
     * guarded by OS file locks, so processes on one host never share a worker.
     */
    public static WorkerRegistry local(Path dataDir) {
        return new StaticRegistry(dataDir);
    }

    /**
     * Opens the registry a URI names: {@code static:} for {@link #local(Path)}, or any scheme a
     * {@link WorkerRegistryProvider} on the class path serves ({@code etcd://…}, {@code zk://…},
     * {@code jdbc:…}).
     *
     * @throws IllegalArgumentException when no provider serves the scheme
     */
    public static WorkerRegistry open(String uri, Path dataDir) {
        String scheme = schemeOf(uri);
        if (scheme.equals("static")) {
            if (!uri.trim().equalsIgnoreCase("static:")) {
                throw new IllegalArgumentException("registry '" + uri + "': the static registry "
                        + "takes no address; write 'static:' and set the data directory instead");
            }
            return local(dataDir);
        }
        return Providers.find(WorkerRegistryProvider.class, WorkerRegistryProvider::schemes,
                scheme, List.of("static"), "registry", uri).open(uri, dataDir);
    }

    private static String schemeOf(String uri) {
        return Providers.schemeOf(uri, "registry", "static:, etcd://host:2379/ns, "
                + "zk://host:2181/ns or jdbc:postgresql://…");
    }
}

package io.idmint;

import io.idmint.spi.WorkerRegistry;
import io.idmint.spi.WorkerRegistryProvider;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.ServiceLoader;

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
        List<String> known = new ArrayList<>(List.of("static"));
        for (WorkerRegistryProvider p : ServiceLoader.load(WorkerRegistryProvider.class)) {
            if (p.scheme().equalsIgnoreCase(scheme)) {
                return p.open(uri, dataDir);
            }
            known.add(p.scheme());
        }
        throw new IllegalArgumentException("registry '" + uri + "': no backend for scheme '"
                + scheme + "' on the class path; available: " + String.join(", ", known));
    }

    private static String schemeOf(String uri) {
        if (uri == null || uri.indexOf(':') <= 0) {
            throw new IllegalArgumentException("registry '" + uri + "' is not a URI such as "
                    + "static:, etcd://host:2379/ns, zk://host:2181/ns or jdbc:postgresql://…");
        }
        return uri.substring(0, uri.indexOf(':')).trim().toLowerCase(Locale.ROOT);
    }
}

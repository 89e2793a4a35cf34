package io.idmint;

import io.idmint.spi.RangeStore;
import io.idmint.spi.RangeStoreProvider;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.ServiceLoader;

/** Opens segment range stores by URI scheme, through the {@link RangeStoreProvider}s found. */
public final class RangeStores {

    private RangeStores() {
    }

    /**
     * Opens the store a URI names: any scheme a {@link RangeStoreProvider} on the class path
     * serves ({@code jdbc:…}, {@code redis://…}, {@code etcd://…}, {@code zk://…}).
     *
     * @throws IllegalArgumentException when the URI is malformed or no provider serves its scheme
     */
    public static RangeStore open(String uri, Path dataDir) {
        if (uri == null || uri.indexOf(':') <= 0) {
            throw new IllegalArgumentException("segment store '" + uri + "' is not a URI such as "
                    + "jdbc:h2:…, jdbc:postgresql://…, redis://host:6379/ns, etcd://host:2379/ns "
                    + "or zk://host:2181/ns");
        }
        String scheme = uri.substring(0, uri.indexOf(':')).trim().toLowerCase(Locale.ROOT);
        List<String> known = new ArrayList<>();
        for (RangeStoreProvider p : ServiceLoader.load(RangeStoreProvider.class)) {
            if (p.scheme().equalsIgnoreCase(scheme)) {
                return p.open(uri, dataDir);
            }
            known.add(p.scheme());
        }
        throw new IllegalArgumentException("segment store '" + uri + "': no backend for scheme '"
                + scheme + "' on the class path; available: "
                + (known.isEmpty() ? "none" : String.join(", ", known)));
    }
}

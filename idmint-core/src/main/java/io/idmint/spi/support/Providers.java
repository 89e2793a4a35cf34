package io.idmint.spi.support;

import io.idmint.spi.RangeStoreProvider;
import io.idmint.spi.WorkerRegistryProvider;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.function.Function;

/**
 * Finds backends by URI scheme: the one {@link ServiceLoader} lookup behind
 * {@link WorkerRegistryProvider} and {@link RangeStoreProvider}.
 */
public final class Providers {

    /**
     * The artifact that serves each scheme of idmint's own backends: the one place that maps a
     * scheme to the module to add when no provider on the class path serves it.
     */
    private static final Map<String, String> ARTIFACTS = Map.of(
            "jdbc", "io.idmint:idmint-jdbc",
            "etcd", "io.idmint:idmint-etcd", "etcds", "io.idmint:idmint-etcd",
            "zk", "io.idmint:idmint-zookeeper", "zks", "io.idmint:idmint-zookeeper",
            "redis", "io.idmint:idmint-redis", "rediss", "io.idmint:idmint-redis");

    /** Schemes whose artifact serves segment range stores but no worker registry. */
    private static final Set<String> RANGE_STORES_ONLY = Set.of("redis", "rediss");

    private Providers() {
    }

    /**
     * The scheme of {@code uri}: what stands before its first {@code :}, trimmed, lower case.
     *
     * @param what what the URI names, for the message: {@code "registry"}
     * @param examples URIs that would do, for the message
     * @throws IllegalArgumentException when the URI has no scheme
     */
    public static String schemeOf(String uri, String what, String examples) {
        if (uri == null || uri.indexOf(':') <= 0) {
            throw new IllegalArgumentException(what + " '" + redact(uri) + "' is not a URI such as "
                    + examples);
        }
        return uri.substring(0, uri.indexOf(':')).trim().toLowerCase(Locale.ROOT);
    }

    /**
     * {@code uri} fit for a message: the password of {@code user:password@} and the values of
     * {@code password=}, {@code secret=} and {@code token=} parameters become {@code ***}.
     */
    public static String redact(String uri) {
        return uri == null ? null : uri.replaceAll("(//[^/@:]*:)[^/@]*@", "$1***@")
                .replaceAll("(?i)((?:password|secret|token)=)[^&;]*", "$1***");
    }

    /**
     * The provider of {@code type} on the class path that serves {@code scheme}.
     *
     * @param schemesOfProvider the schemes a provider serves
     * @param builtIn schemes served without a provider, listed first in the message
     * @param what what the URI names, for the message: {@code "registry"}
     * @throws IllegalArgumentException naming the URI, the artifact that serves its scheme (for
     *     idmint's own backends) and the schemes available when none serves it
     */
    public static <P> P find(Class<P> type, Function<P, List<String>> schemesOfProvider,
            String scheme, List<String> builtIn, String what, String uri) {
        List<String> known = new ArrayList<>(builtIn);
        for (P p : ServiceLoader.load(type)) {
            List<String> served = schemesOfProvider.apply(p);
            if (served.stream().anyMatch(scheme::equalsIgnoreCase)) {
                return p;
            }
            known.addAll(served);
        }
        throw new IllegalArgumentException(what + " '" + redact(uri) + "': no backend for scheme '"
                + scheme + "' on the class path; " + fix(type, scheme) + "available: "
                + (known.isEmpty() ? "none" : String.join(", ", known)));
    }

    /** What to do about a scheme no provider serves, ending in "; ", or "" when unknown. */
    private static String fix(Class<?> type, String scheme) {
        String s = scheme.toLowerCase(Locale.ROOT);
        String artifact = ARTIFACTS.get(s);
        if (artifact == null) {
            return "";
        }
        if (type == WorkerRegistryProvider.class && RANGE_STORES_ONLY.contains(s)) {
            return artifact + " serves segment stores only, not worker registries; ";
        }
        return "add the dependency " + artifact + "; ";
    }
}

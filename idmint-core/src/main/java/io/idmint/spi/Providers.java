package io.idmint.spi;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.ServiceLoader;
import java.util.function.Function;

/**
 * Finds backends by URI scheme: the one {@link ServiceLoader} lookup behind
 * {@link WorkerRegistryProvider} and {@link RangeStoreProvider}.
 */
public final class Providers {

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
     * @throws IllegalArgumentException naming the URI and the schemes available when none serves
     *     it
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
                + scheme + "' on the class path; available: "
                + (known.isEmpty() ? "none" : String.join(", ", known)));
    }
}

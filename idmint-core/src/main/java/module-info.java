/**
 * The idmint core: the generators, layouts and codecs ({@code io.idmint}), the segment
 * generator ({@code io.idmint.segment}), what a backend implements ({@code io.idmint.spi}) and
 * the rules every backend applies the same way ({@code io.idmint.spi.support}). It exports
 * exactly the packages {@code PublicApiTest} pins, requires nothing but {@code java.base}, and
 * finds backends through {@link java.util.ServiceLoader}. On the class path the jar works as
 * before: this file is then ignored.
 */
module io.idmint.core {
    exports io.idmint;
    exports io.idmint.segment;
    exports io.idmint.spi;
    exports io.idmint.spi.support;

    uses io.idmint.spi.WorkerRegistryProvider;
    uses io.idmint.spi.RangeStoreProvider;
}

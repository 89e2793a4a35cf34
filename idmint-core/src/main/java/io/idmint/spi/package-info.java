/**
 * Service-provider interfaces: what a backend implements. A {@link io.idmint.spi.WorkerRegistry}
 * offers three conditional operations (claim, extend, release); the core runs the high-water-mark
 * protocol on top of them, so every backend gets it for free. Backends are found by URI scheme
 * through {@link java.util.ServiceLoader} and {@link io.idmint.spi.WorkerRegistryProvider}.
 * A {@link io.idmint.spi.RangeStore} has one primitive, {@code allocate(tag, size)}, from which
 * the core's segment generator serves dense per-tag sequences.
 *
 * <p>The rules every backend applies the same way (names, a tag's stored value, the lookup by
 * URI scheme, URI options and credentials) are helpers apart, in {@code io.idmint.spi.support}.
 */
package io.idmint.spi;

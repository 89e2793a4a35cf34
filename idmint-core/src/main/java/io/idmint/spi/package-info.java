/**
 * Service-provider interfaces: what a backend implements. A {@link io.idmint.spi.WorkerRegistry}
 * offers three conditional operations (claim, extend, release); the core runs the high-water-mark
 * protocol on top of them, so every backend gets it for free. Backends are found by URI scheme
 * through {@link java.util.ServiceLoader} and {@link io.idmint.spi.WorkerRegistryProvider}.
 * A {@link io.idmint.spi.RangeStore} has one primitive, {@code allocate(tag, size)}, from which
 * the core's segment generator serves dense per-tag sequences.
 *
 * <p>The rules every backend applies the same way are written once here: {@link
 * io.idmint.spi.Names} (the name rule for tags, namespaces and datacenter names), {@link
 * io.idmint.spi.TagValue} (a tag's stored value, its create and allocate checks and its
 * {@code "<next> <step>"} text), {@link io.idmint.spi.Providers} (the lookup by URI scheme),
 * {@link io.idmint.spi.Durations} and {@link io.idmint.spi.Checks}.
 */
package io.idmint.spi;

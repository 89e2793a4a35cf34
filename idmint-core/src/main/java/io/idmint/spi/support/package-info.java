/**
 * Helpers for backends, apart from the interfaces they implement ({@code io.idmint.spi}): the
 * rules every backend applies the same way, written once. {@link io.idmint.spi.support.Names}
 * (the name rule for tags, namespaces and datacenter names), {@link
 * io.idmint.spi.support.TagValue} (a tag's stored value, its create and allocate checks and its
 * {@code "<next> <step>"} text), {@link io.idmint.spi.support.Providers} (the lookup by URI
 * scheme), {@link io.idmint.spi.support.UriOptions} and {@link
 * io.idmint.spi.support.UriSecurity} (options and credentials in a store's URI), {@link
 * io.idmint.spi.support.Passwords}, {@link io.idmint.spi.support.Durations} and {@link
 * io.idmint.spi.support.Checks}; and {@link io.idmint.spi.support.NodeValues}, a node's worker
 * settings as the server and the Spring Boot starter both read them. A backend may use them; the
 * core's API does not expose them.
 */
package io.idmint.spi.support;

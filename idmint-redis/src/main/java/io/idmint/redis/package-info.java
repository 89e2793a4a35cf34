/**
 * The Redis segment range store, for URIs
 * {@code redis[s]://[[user]:password@]host[:port][/namespace][?timeout=2s&persistence=checked]}.
 * Found through {@link java.util.ServiceLoader} as a {@link io.idmint.spi.RangeStoreProvider};
 * only {@link io.idmint.redis.RedisRangeStoreProvider} is public.
 *
 * <p>Each tag is a hash {@code <namespace>:segments:<tag>} with the fields {@code next} and
 * {@code step}; an allocation is one Lua script that {@code HINCRBY}s {@code next}. Redis must
 * be persistent ({@code appendonly yes}, {@code appendfsync always}): a restart that loses the
 * last increments hands out the same values again. The store checks that on first use (and
 * after reconnecting) and refuses a server that fails it, unless the URI opts out with
 * {@code persistence=unchecked}.
 */
package io.idmint.redis;

/**
 * idmint's public API: {@link io.idmint.Snowflake} builds an {@link io.idmint.IdGenerator} over a
 * {@link io.idmint.Layout}, leasing its worker ID from a registry
 * ({@link io.idmint.WorkerRegistries}); {@link io.idmint.IdCodec} writes and reads IDs as text.
 * Segment generation lives in {@link io.idmint.segment}. Everything else in this package is
 * package-private implementation.
 */
package io.idmint;

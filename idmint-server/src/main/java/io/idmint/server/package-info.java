/**
 * The {@code idmint} executable: the server ({@code serve}: HTTP on Vert.x, gRPC, health,
 * metrics, a status page; HTTP and gRPC are thin adapters over one
 * {@link io.idmint.server.RequestPipeline}, which mints through
 * {@link io.idmint.server.IdService} and {@link io.idmint.server.SegmentService}) and the command
 * line ({@code next}, {@code decode}, {@code layout}, {@code registry}, {@code segment},
 * {@code config}) on top of the core, with their configuration from flags, environment and a
 * properties file. Nothing here is an API; {@link io.idmint.server.Main} is public only as the
 * jar's entry point.
 */
package io.idmint.server;

/**
 * The {@code idmint} executable: the server ({@code serve}: HTTP on Vert.x, gRPC, health,
 * metrics, a status page, all thin adapters over {@link io.idmint.server.IdService} and
 * {@link io.idmint.server.SegmentService}) and the command line ({@code next}, {@code decode},
 * {@code layout}, {@code segment}) on top of the core, with their
 * configuration from flags, environment and a properties file. Nothing here is an API;
 * {@link io.idmint.server.Main} is public only as the jar's entry point.
 */
package io.idmint.server;

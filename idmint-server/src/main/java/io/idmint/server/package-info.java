/**
 * The {@code idmint} executable: the command line ({@code next}, {@code decode}, {@code layout})
 * on top of the core, and its configuration from flags, environment and a properties file.
 * Nothing here is an API; {@link io.idmint.server.Main} is public only as the jar's entry point.
 */
package io.idmint.server;

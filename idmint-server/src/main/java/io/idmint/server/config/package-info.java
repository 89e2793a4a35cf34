/**
 * The configuration: every key once ({@link io.idmint.server.config.Config}), with its default,
 * help and parser, read from flags, environment and a properties file; the rules that tie keys
 * together are checked here, at load.
 *
 * <p>May use: {@code ops} (to check a log format or level as logging will read it), the core.
 * Nothing else of the server: every other layer reads its settings from here.
 */
package io.idmint.server.config;

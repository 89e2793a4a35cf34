/**
 * TLS for both transports and the {@code health} command: the key and certificates from files
 * ({@link io.idmint.server.tls.TlsMaterial}) and their reload while serving ({@link
 * io.idmint.server.tls.ServerTls}).
 *
 * <p>May use: {@code config}, {@code ops}, the core. Nothing else of the server.
 */
package io.idmint.server.tls;

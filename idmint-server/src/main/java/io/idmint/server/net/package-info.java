/**
 * What both transports share about connections: the bounded, idle-evicting connection limit
 * ({@link io.idmint.server.net.ConnectionLimit}).
 *
 * <p>May use: the core and Netty. Nothing else of the server.
 */
package io.idmint.server.net;

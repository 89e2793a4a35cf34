/**
 * What the server and the CLI mint with, built from the configuration: the generator and the
 * worker it leases ({@link io.idmint.server.mint.LeasedGenerator}; {@code serve}'s claims it
 * after the server listens, {@link io.idmint.server.mint.ClaimingGenerator}), the peer check of the
 * {@code static:} registry ({@link io.idmint.server.mint.StaticPeerCheck}) and the other formats
 * and public codes ({@link io.idmint.server.mint.CodesAndFormats}).
 *
 * <p>May use: {@code config}, {@code ops}, the core and its backends. Nothing of the API,
 * the transports, the CLI or the wiring.
 */
package io.idmint.server.mint;

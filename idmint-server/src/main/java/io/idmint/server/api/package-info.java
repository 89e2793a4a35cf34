/**
 * The operations of the API, whatever the transport: which there are and their rules ({@link
 * io.idmint.server.api.Operation}: whether each mints, whether it is an admin call), each one's
 * steps, one method per operation ({@link io.idmint.server.api.Calls}: parse, charge, mint,
 * and for an operation that may wait a completion run where its transport allows, {@link
 * io.idmint.server.api.Waits}, {@link io.idmint.server.api.LoopMint}), minting through {@link
 * io.idmint.server.api.IdService} and {@link io.idmint.server.api.SegmentService}, the steps
 * every request takes ({@link io.idmint.server.api.RequestPipeline}: authorise, charge), the
 * caller rules ({@link io.idmint.server.api.Access}), the refusals ({@link
 * io.idmint.server.api.ApiException}, {@link io.idmint.server.api.Problem}) and who this node is.
 * What a request asks for is checked once, where it enters, into values nothing below checks
 * again ({@link io.idmint.server.api.Tag}, {@link io.idmint.server.api.Count}).
 *
 * <p>May use: {@code mint}, {@code config}, {@code ops}, {@code json}, the core. Never a transport
 * ({@code http}, {@code grpc}), the CLI or the wiring: a rule written here holds for both
 * transports.
 */
package io.idmint.server.api;

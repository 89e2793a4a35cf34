/**
 * The gRPC API ({@code idmint.v1}): the services over the {@code api} layer, their status codes,
 * the batched and streamed ID calls, and what one gRPC server holds for its callers (calls and
 * unread replies, {@link io.idmint.server.grpc.GrpcLimits}), health and reflection. An adapter:
 * it reads its messages into the {@code api} layer and writes what that answers.
 *
 * <p>May use: {@code api}, {@code mint}, {@code net}, {@code tls}, {@code config}, {@code ops},
 * {@code json}, the core. Never {@code http}, the CLI or the wiring.
 */
package io.idmint.server.grpc;

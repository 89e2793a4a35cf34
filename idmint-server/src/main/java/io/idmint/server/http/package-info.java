/**
 * The HTTP API on Vert.x: routing by path ({@link io.idmint.server.http.Route}), reading the
 * query, writing the JSON or text answer, the Leaf-compatible paths and the operations pages
 * (health, metrics, status, OpenAPI). An adapter: it reads its wire into the {@code api} layer
 * and writes what that answers.
 *
 * <p>May use: {@code api}, {@code mint}, {@code net}, {@code tls}, {@code config}, {@code ops},
 * {@code json}, the core. Never {@code grpc}, the CLI or the wiring.
 */
package io.idmint.server.http;

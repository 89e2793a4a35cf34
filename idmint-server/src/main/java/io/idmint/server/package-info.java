/**
 * The {@code idmint} executable and its wiring: {@link io.idmint.server.Main} (the jar's entry
 * point, public only for that), {@code serve} ({@link io.idmint.server.ServeCommand}) and
 * {@link io.idmint.server.Server}, which builds the layers below and closes them in reverse.
 * Nothing here is an API.
 *
 * <p>The layers, each a package that says what it may use (and {@code LayersTest} holds them to
 * it): {@code http} and {@code grpc} (transport adapters) and {@code cli} (the other commands)
 * over {@code api} (the operations), over {@code mint} (generators and formats built from
 * configuration), {@code tls} and {@code net}, over {@code config}, over {@code ops} (metrics,
 * logs), with {@code json} under all. Only this package may use every layer; none uses it.
 */
package io.idmint.server;

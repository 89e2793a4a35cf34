/**
 * The command line but {@code serve}: {@code next}, {@code decode}, {@code layout},
 * {@code registry}, {@code segment}, {@code sql}, {@code migrate}, {@code config},
 * {@code health}, their shared options and exit codes ({@link io.idmint.server.cli.ExitCode}).
 *
 * <p>May use: {@code api}, {@code mint}, {@code tls}, {@code config}, {@code ops}, {@code json},
 * the core. Never a transport ({@code http}, {@code grpc}, {@code net}) or the wiring.
 */
package io.idmint.server.cli;

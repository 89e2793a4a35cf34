/**
 * What the server's tests share to run the real thing: {@code serve} processes and their logs
 * ({@link io.idmint.server.harness.IdmintProcesses}), in-process servers
 * ({@link io.idmint.server.harness.TestServers}) and command lines
 * ({@link io.idmint.server.harness.Cli}), child processes with deadlines
 * ({@link io.idmint.server.harness.ChildProcess}), HTTP calls, Node tools and a headless
 * Chromium driven over the DevTools protocol ({@link io.idmint.server.harness.Cdp}).
 *
 * <p>It may use the server's main code and the shared testkit ({@code io.idmint.testkit}), never
 * a test class: tests use the harness, not the other way round.
 */
package io.idmint.server.harness;

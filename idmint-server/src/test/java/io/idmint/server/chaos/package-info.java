/**
 * Fleets of real {@code serve} processes under faults and load, and the oracle that judges every
 * ID they answered: the chaos harness ({@link io.idmint.server.chaos.Chaos}, run by
 * {@code ChaosIT}, long form {@code scripts/chaos}) and the scale run
 * ({@link io.idmint.server.chaos.Scale}, run by {@code ScaleIT}, long form
 * {@code scripts/scale}). docs/testing.md, "Chaos harness" and "Scale run". The two {@code IT}s
 * stay in the root package with the other integration tests: failsafe takes classes in name
 * order, which starts the three-minute chaos run first and the scale run (which bounds start-up
 * times) away from it.
 *
 * <p>It may use the harness ({@code io.idmint.server.harness}) and the server's main code.
 */
package io.idmint.server.chaos;

/**
 * Fleets of real {@code serve} processes under faults and load, and the oracle that judges every
 * ID they answered: the chaos harness ({@link io.idmint.server.chaos.ChaosIT}, long form
 * {@code scripts/chaos}) and the scale run ({@link io.idmint.server.chaos.ScaleIT}, long form
 * {@code scripts/scale}). docs/testing.md, "Chaos harness" and "Scale run".
 *
 * <p>It may use the harness ({@code io.idmint.server.harness}) and the server's main code.
 */
package io.idmint.server.chaos;

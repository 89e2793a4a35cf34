/**
 * JMH benchmarks of idmint beside JDK baselines, built into {@code target/benchmarks.jar}. Not
 * part of the published API; each class's Javadoc has its exact run command and target. Also
 * the two programs {@code scripts/bench-http} runs: {@link io.idmint.benchmarks.BareVertxServer}
 * (the HTTP ceiling) and {@link io.idmint.benchmarks.FixedRateLoad} (fixed-rate load).
 */
package io.idmint.benchmarks;

/**
 * JMH benchmarks of idmint beside JDK baselines and published peers, built into
 * {@code target/benchmarks.jar}. Not part of the published API; each class's Javadoc has its
 * exact run command and target. Also the programs the scripts run:
 * {@link io.idmint.benchmarks.BareVertxServer} (the HTTP ceiling) and
 * {@link io.idmint.benchmarks.FixedRateLoad} (fixed-rate load) for {@code scripts/bench http},
 * {@link io.idmint.benchmarks.PeerCheck} (duplicates and lead of each peer) for
 * {@code scripts/bench peers}, and {@link io.idmint.benchmarks.InsertBenchmark} (what the key
 * type costs PostgreSQL) for {@code scripts/bench insert}.
 */
package io.idmint.benchmarks;

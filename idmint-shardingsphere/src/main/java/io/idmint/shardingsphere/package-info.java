/**
 * idmint in Apache ShardingSphere 5.5 (ShardingSphere-JDBC and -Proxy), found through
 * ShardingSphere's SPI by type name: the key generators {@code IDMINT} ({@link
 * io.idmint.shardingsphere.IdmintKeyGenerateAlgorithm}: snowflake IDs whose worker is leased
 * from idmint's registry, with a random sequence start so {@code id % N} is even at any rate)
 * and {@code IDMINT_SEGMENT} ({@link io.idmint.shardingsphere.IdmintSegmentKeyGenerateAlgorithm}:
 * dense segment values), and the sharding algorithms {@code IDMINT_INTERVAL} ({@link
 * io.idmint.shardingsphere.IdmintIntervalShardingAlgorithm}: by the time inside the ID, so a
 * range of IDs reaches only the periods it spans) and {@code IDMINT_MOD} ({@link
 * io.idmint.shardingsphere.IdmintModShardingAlgorithm}). Uses idmint-core; ShardingSphere is
 * the application's.
 */
package io.idmint.shardingsphere;

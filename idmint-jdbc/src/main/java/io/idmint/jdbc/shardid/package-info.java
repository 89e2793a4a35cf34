/**
 * Instagram-style IDs minted inside PostgreSQL: {@link io.idmint.jdbc.shardid.ShardIdFunction}
 * writes a PL/pgSQL function {@code <schema>.next_id()} for a layout with a shard field (time,
 * shard and {@code nextval % modulus} in the sequence field), guarded by a per-shard high-water
 * mark so that it raises rather than issue an ID it cannot prove new;
 * {@link io.idmint.jdbc.shardid.ShardIdFunctions} installs it over JDBC, reads a schema's
 * configured shard, and verifies an installed function against the layout. See
 * docs/design.md, "IDs minted in PostgreSQL", for the exact guarantee and its limits.
 */
package io.idmint.jdbc.shardid;

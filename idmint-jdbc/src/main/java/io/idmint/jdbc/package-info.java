/**
 * The {@code jdbc} backend, in PostgreSQL, MySQL, MariaDB or H2.
 *
 * <p>Worker registry: worker IDs leased from a table. Each step is one conditional
 * {@code UPDATE} fenced by the row's {@code generation} counter; leases expire on the database
 * server's clock; HWMs only grow through {@code GREATEST()} (a release may lower one to the last
 * issued time, never below the HWM read at claim). Entry points:
 * {@link io.idmint.jdbc.JdbcRegistries} and the {@code jdbc:} scheme of
 * {@link io.idmint.WorkerRegistries#open}.
 *
 * <p>Segment store: per-tag ranges from the table {@code idmint_segment}, each allocation one
 * {@code UPDATE … SET next_id = next_id + ?} and its read-back in one transaction. Entry points:
 * {@link io.idmint.jdbc.JdbcRangeStores} and the {@code jdbc:} scheme of
 * {@link io.idmint.segment.RangeStores#open}; the node's default is an H2 file under its data
 * directory.
 */
package io.idmint.jdbc;

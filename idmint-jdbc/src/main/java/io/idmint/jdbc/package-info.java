/**
 * The {@code jdbc} worker registry: worker IDs leased from a table in PostgreSQL, MySQL, MariaDB
 * or H2. Each step is one conditional {@code UPDATE} fenced by the row's {@code generation}
 * counter; leases expire on the database server's clock; HWMs only grow through
 * {@code GREATEST()} (a release may lower one to the last issued time, never below the HWM read
 * at claim). Entry points: {@link io.idmint.jdbc.JdbcRegistries} and the
 * {@code jdbc:} scheme of {@link io.idmint.WorkerRegistries#open}.
 */
package io.idmint.jdbc;

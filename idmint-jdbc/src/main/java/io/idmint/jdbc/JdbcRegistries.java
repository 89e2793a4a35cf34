package io.idmint.jdbc;

import io.idmint.spi.RegistryException;
import io.idmint.spi.WorkerRegistry;

/**
 * Worker registries in an SQL database (PostgreSQL, MySQL, MariaDB, H2), for code that names the
 * backend directly; {@code WorkerRegistries.open("jdbc:…", dir)} finds the same through
 * {@link java.util.ServiceLoader}.
 *
 * <p>The URL is the JDBC URL itself, credentials included
 * ({@code jdbc:postgresql://db:5432/ids?user=idmint&password=…}), or credentials from the
 * environment variables {@code IDMINT_JDBC_USER} and {@code IDMINT_JDBC_PASSWORD} when set (they
 * keep the password out of command lines). Options, stripped before the driver sees the URL:
 * {@code idmint.timeout} (default {@code 2s}: the bound on getting a connection and on each
 * statement; a slower store counts as unavailable) and {@code idmint.pool-size} (connections per
 * node, default 2), written as query parameters ({@code ?idmint.timeout=3s}) or, for H2, as
 * settings ({@code jdbc:h2:./ids;idmint.timeout=3s}).
 */
public final class JdbcRegistries {

    private JdbcRegistries() {
    }

    /**
     * Opens a registry client with its own small connection pool. It does not connect yet: a
     * database that is down now makes the first claim fail with {@code UNAVAILABLE}, and the
     * tables are created on first use.
     *
     * @throws IllegalArgumentException naming the bad part of the URL
     */
    public static WorkerRegistry open(String url) {
        return new JdbcRegistry(JdbcConfig.parse(url, System.getenv()));
    }

    /**
     * Creates the registry's tables unless they exist ({@code idmint registry init}); safe to
     * run again and while nodes run.
     *
     * @throws IllegalArgumentException naming the bad part of the URL
     * @throws RegistryException {@code UNAVAILABLE} when the database cannot be reached or
     *     refuses the statements (for example for lack of privileges)
     */
    public static void initSchema(String url) throws RegistryException {
        try (JdbcRegistry r = new JdbcRegistry(JdbcConfig.parse(url, System.getenv()))) {
            r.createSchema();
        }
    }
}

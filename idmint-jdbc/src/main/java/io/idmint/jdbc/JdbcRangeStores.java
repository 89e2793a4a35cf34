package io.idmint.jdbc;

import io.idmint.spi.RangeStore;
import io.idmint.spi.RegistryException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Map;
import javax.sql.DataSource;

/**
 * Segment range stores in an SQL database (PostgreSQL, MySQL, MariaDB, H2), for code that names
 * the backend directly; {@code RangeStores.open("jdbc:…", dataDir)} finds the same through
 * {@link java.util.ServiceLoader}.
 *
 * <p>The URL is the JDBC URL, with the registry's options and credentials
 * ({@link JdbcRegistries}) plus {@code idmint.namespace} (default {@code default}): stores of
 * different namespaces share the table but not their tags; and {@code idmint.table}:
 * {@code idmint_segment} (default, idmint's own table) or {@code leaf_alloc}, an existing Leaf
 * table served with Leaf's semantics beside running Leaf servers (docs/migration.md). An H2
 * file path that is neither absolute nor {@code ./…} nor {@code ~/…} lives under the node's
 * data directory:
 * {@link #DEFAULT_URL} is the file {@code <dataDir>/segments.mv.db}.
 */
public final class JdbcRangeStores {

    /**
     * The default segment store of a node: an embedded H2 file under its data directory. One
     * process at a time opens it (H2 locks the file); the others' calls are UNAVAILABLE.
     */
    public static final String DEFAULT_URL = "jdbc:h2:file:segments";

    private JdbcRangeStores() {
    }

    /**
     * Opens a store client with its own small connection pool. It does not connect yet: a
     * database that is down now makes the first call fail with {@code UNAVAILABLE}, and the
     * table is created on first use.
     *
     * @param dataDir the node's data directory, for a relative H2 path; may be null otherwise
     * @throws IllegalArgumentException naming the bad part of the URL
     */
    public static RangeStore open(String url, Path dataDir) {
        JdbcConfig config = config(url, System.getenv(), dataDir);
        return config.use() == JdbcConfig.Use.LEAF_ALLOC ? new LeafAllocStore(config)
                : new JdbcRangeStore(config);
    }

    /**
     * Opens a store on an application's own DataSource (a Spring Boot application's pool, say),
     * in idmint's table {@code idmint_segment}, created on first use. It borrows a connection for
     * each call and never holds one between calls; an allocation is a transaction of its own
     * (read committed, committed before the connection goes back), so no transaction of the
     * application's ever wraps one, and a rolled-back application transaction never gives
     * values back. Closing the store leaves the DataSource open. It connects once, now, to learn
     * which database it is.
     *
     * @param namespace stores of different namespaces share the table but not their tags
     * @throws IllegalArgumentException when the database is none idmint supports (PostgreSQL,
     *     MySQL, MariaDB, H2), an H2 file database writes commits late (it needs
     *     {@code ;WRITE_DELAY=0} in its URL), or the namespace is not a valid name
     * @throws IllegalStateException when no connection could be had to learn the database
     */
    public static RangeStore open(DataSource dataSource, String namespace) {
        String url;
        try (Connection c = dataSource.getConnection()) {
            url = c.getMetaData().getURL();
        } catch (SQLException e) {
            throw new IllegalStateException("jdbc segment store on the application's DataSource: "
                    + "cannot connect to learn which database it is: "
                    + JdbcPool.describe(e), e);
        }
        JdbcConfig config = JdbcConfig.ofDataSource(url, namespace);
        return new JdbcRangeStore(config, new JdbcPool(config, dataSource));
    }

    /**
     * Creates the store's table unless it exists; safe to run again and while nodes run.
     *
     * @throws IllegalArgumentException naming the bad part of the URL, or when it names
     *     {@code idmint.table=leaf_alloc}: that table is Leaf's, never created here
     * @throws RegistryException {@code UNAVAILABLE} when the database cannot be reached or
     *     refuses the statement
     */
    public static void initSchema(String url, Path dataDir) throws RegistryException {
        JdbcConfig config = config(url, System.getenv(), dataDir);
        if (config.use() == JdbcConfig.Use.LEAF_ALLOC) {
            throw new IllegalArgumentException("jdbc segment store '" + config.display()
                    + "': idmint.table=leaf_alloc serves an existing Leaf table and never "
                    + "creates it; create it with Leaf's scripts/leaf_alloc.sql");
        }
        try (JdbcRangeStore s = new JdbcRangeStore(config)) {
            s.createSchema();
        }
    }

    static JdbcConfig config(String url, Map<String, String> env, Path dataDir) {
        return JdbcConfig.parse(JdbcConfig.Use.SEGMENTS, url, env, dataDir);
    }
}

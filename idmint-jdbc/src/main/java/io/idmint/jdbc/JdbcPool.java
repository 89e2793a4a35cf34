package io.idmint.jdbc;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.idmint.spi.Range;
import io.idmint.spi.RegistryException;
import io.idmint.spi.RegistryException.Kind;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.SQLTimeoutException;
import java.sql.SQLTransientConnectionException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;

/**
 * One client's small HikariCP pool, shared by the registry and the segment store, or an
 * application's own DataSource: bounded waits, statements bounded by the query timeout, the
 * schema created on first use, and SQL failures turned into {@link Kind#UNAVAILABLE} with
 * messages that never show credentials. A connection borrowed from an application is used for
 * one call, in auto-commit or in a transaction of this client's own, at read committed, and goes
 * back as it came.
 */
final class JdbcPool implements AutoCloseable {

    private static final AtomicInteger POOLS = new AtomicInteger();

    private final JdbcConfig config;
    /** This client's own pool, or null on an application's DataSource. */
    private final HikariDataSource pool;
    private final DataSource source;
    private final int queryTimeoutSeconds;
    private volatile boolean schemaReady;

    /** Opening never connects: a database that is down now fails the first call instead. */
    JdbcPool(JdbcConfig config) {
        this.config = config;
        this.queryTimeoutSeconds = queryTimeoutSeconds(config);
        this.pool = new HikariDataSource(poolConfig(config, queryTimeoutSeconds));
        this.source = pool;
    }

    /** On an application's DataSource, which stays the application's: never closed here. */
    JdbcPool(JdbcConfig config, DataSource application) {
        this.config = config;
        this.queryTimeoutSeconds = queryTimeoutSeconds(config);
        this.pool = null;
        this.source = application;
    }

    private static int queryTimeoutSeconds(JdbcConfig config) {
        return (int) Math.max(1, (config.timeout().toMillis() + 999) / 1000);
    }

    private static HikariConfig poolConfig(JdbcConfig config, int queryTimeoutSeconds) {
        HikariConfig h = new HikariConfig();
        h.setPoolName("idmint-jdbc-" + POOLS.incrementAndGet());
        h.setJdbcUrl(config.driverUrl());
        if (config.user() != null) {
            h.setUsername(config.user());
        }
        if (config.password() != null) {
            h.setPassword(config.password());
        }
        long timeout = config.timeout().toMillis();
        h.setMaximumPoolSize(config.poolSize());
        h.setMinimumIdle(0);
        h.setConnectionTimeout(timeout);
        h.setValidationTimeout(Math.max(250, timeout / 2));
        // Opening never fails: a store that is down now leaves the node ACQUIRING, not dead.
        h.setInitializationFailTimeout(-1);
        h.setAutoCommit(true);
        h.setTransactionIsolation("TRANSACTION_READ_COMMITTED");
        // A silent network must not hang a keepalive: the socket timeout backs up the query
        // timeout (which needs the server's help to cancel).
        int socketSeconds = queryTimeoutSeconds + 2;
        switch (config.dialect()) {
            case POSTGRESQL:
                setDefault(h, config, "connectTimeout", String.valueOf(queryTimeoutSeconds));
                setDefault(h, config, "socketTimeout", String.valueOf(socketSeconds));
                break;
            case MYSQL:
                setDefault(h, config, "connectTimeout", String.valueOf(timeout));
                setDefault(h, config, "socketTimeout", String.valueOf(socketSeconds * 1000L));
                break;
            default:
                break;
        }
        return h;
    }

    private static void setDefault(HikariConfig h, JdbcConfig config, String key, String value) {
        if (!config.urlSets(key)) {
            h.addDataSourceProperty(key, value);
        }
    }

    JdbcConfig config() {
        return config;
    }

    int queryTimeoutSeconds() {
        return queryTimeoutSeconds;
    }

    /** A connection from the pool, waiting at most the timeout; the schema exists on it. */
    Connection connect() throws SQLException {
        Connection c = pool != null ? pool.getConnection() : borrow();
        try {
            ensureSchema(c);
            return c;
        } catch (SQLException | RuntimeException e) {
            c.close();
            throw e;
        }
    }

    /**
     * A connection of the application's, set to auto-commit and read committed as this
     * client's own are; closing it sets back what it had, then hands it back.
     */
    private Connection borrow() throws SQLException {
        Connection c = source.getConnection();
        try {
            boolean autoCommit = c.getAutoCommit();
            int isolation = c.getTransactionIsolation();
            if (!autoCommit) {
                c.setAutoCommit(true);
            }
            if (isolation != Connection.TRANSACTION_READ_COMMITTED) {
                c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
            }
            return (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(),
                    new Class<?>[] {Connection.class}, (proxy, method, args) -> {
                        if (method.getName().equals("close") && method.getParameterCount() == 0) {
                            giveBack(c, autoCommit, isolation);
                            return null;
                        }
                        try {
                            return method.invoke(c, args);
                        } catch (InvocationTargetException e) {
                            throw e.getCause();
                        }
                    });
        } catch (SQLException | RuntimeException e) {
            c.close();
            throw e;
        }
    }

    /** Sets back a borrowed connection's settings and hands it back, even when that fails. */
    private static void giveBack(Connection c, boolean autoCommit, int isolation)
            throws SQLException {
        try (c) {
            if (!c.isClosed()) {
                if (c.getAutoCommit() != autoCommit) {
                    c.setAutoCommit(autoCommit);
                }
                if (isolation != Connection.TRANSACTION_READ_COMMITTED) {
                    c.setTransactionIsolation(isolation);
                }
            }
        }
    }

    /** A statement bounded by the query timeout, so a stuck database cannot hang a caller. */
    PreparedStatement prepare(Connection c, String statement) throws SQLException {
        PreparedStatement ps = c.prepareStatement(statement);
        ps.setQueryTimeout(queryTimeoutSeconds);
        return ps;
    }

    /** Creates this use's tables unless they exist ({@code CREATE TABLE IF NOT EXISTS}). */
    private void ensureSchema(Connection c) throws SQLException {
        if (schemaReady || config.use().script() == null) {
            return;
        }
        // PostgreSQL can fail one of two racing CREATE TABLE IF NOT EXISTS with a unique
        // violation in its catalog; the next attempt finds the table.
        for (int attempt = 1;; attempt++) {
            try (Statement s = c.createStatement()) {
                s.setQueryTimeout(queryTimeoutSeconds);
                for (String ddl : config.dialect().schemaStatements(config.use())) {
                    s.execute(ddl);
                }
                schemaReady = true;
                return;
            } catch (SQLException e) {
                if (attempt >= 3 || isConnectionFailure(e)) {
                    throw e;
                }
            }
        }
    }

    /** The statements of one allocation, run in the caller's transaction. */
    interface Increment {
        Range take(Connection c) throws SQLException, RegistryException;
    }

    /**
     * One allocation of a range store in a transaction of its own: {@code increment}, then
     * commit; on a failure before the commit, an explicit rollback (a failing rollback is kept
     * with the first failure).
     *
     * @param where the store, for messages
     * @throws RegistryException UNAVAILABLE when the commit failed, naming the range whose
     *     outcome is unknown; or what {@code increment} threw
     * @throws SQLException when connecting or a statement failed (nothing was taken)
     */
    Range allocate(String where, String what, Increment increment)
            throws SQLException, RegistryException {
        try (Connection c = connect()) {
            c.setAutoCommit(false);
            Range taken;
            try {
                taken = increment.take(c);
            } catch (SQLException | RegistryException | RuntimeException e) {
                try {
                    c.rollback();
                } catch (SQLException r) {
                    e.addSuppressed(r);
                }
                throw e;
            }
            try {
                c.commit();
            } catch (SQLException e) {
                throw new RegistryException(Kind.UNAVAILABLE, where + ": " + what + ": the commit "
                        + "failed and its outcome is unknown; values [" + taken.start() + ", "
                        + taken.end() + ") may be taken and are never handed out: "
                        + describe(e), e);
            }
            return taken;
        }
    }

    /** {@code what} failed: the database did not answer in time, or refused. */
    RegistryException unavailable(String what, SQLException e) {
        String why = e instanceof SQLTimeoutException ? "timed out"
                : e instanceof SQLTransientConnectionException ? "no connection within "
                        + config.timeout().toMillis() + " ms"
                : "failed";
        return new RegistryException(Kind.UNAVAILABLE, config.use().label() + " "
                + config.display() + ": " + what + " " + why + ": " + describe(e), e);
    }

    /**
     * The driver's message and SQLState, for error messages; when the pool gave up waiting for a
     * connection, also the reason the last attempt failed (the database refused, is locked, …).
     */
    static String describe(SQLException e) {
        String why = e.getMessage();
        if (e instanceof SQLTransientConnectionException && e.getCause() != null
                && e.getCause() != e) {
            why += "; last connection attempt: " + e.getCause().getMessage();
        }
        return why + (e.getSQLState() == null ? "" : " [SQLState " + e.getSQLState() + "]");
    }

    /** A unique-key violation: the row exists already. */
    static boolean isDuplicateKey(SQLException e) {
        // PostgreSQL and H2: 23505; MySQL and MariaDB: 23000 with error 1062 (ER_DUP_ENTRY).
        return "23505".equals(e.getSQLState())
                || "23000".equals(e.getSQLState()) && e.getErrorCode() == 1062;
    }

    private static boolean isConnectionFailure(SQLException e) {
        return e.getSQLState() != null && e.getSQLState().startsWith("08");
    }

    @Override
    public void close() {
        if (pool != null) {
            pool.close();
        }
    }
}

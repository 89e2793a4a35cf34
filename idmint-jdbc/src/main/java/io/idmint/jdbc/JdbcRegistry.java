package io.idmint.jdbc;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.idmint.spi.Claim;
import io.idmint.spi.ClaimRequest;
import io.idmint.spi.RegistryException;
import io.idmint.spi.RegistryException.Kind;
import io.idmint.spi.WorkerRecord;
import io.idmint.spi.WorkerRegistry;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLTimeoutException;
import java.sql.SQLTransientConnectionException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A worker registry in an SQL database: one row per worker ID with its high-water mark, a
 * {@code generation} counter as the fencing token, the holder and a lease deadline on the
 * database server's clock. See {@link WorkerSql} for the statements.
 */
final class JdbcRegistry implements WorkerRegistry {

    private static final long MAX_TTL_MILLIS = TimeUnit.DAYS.toMillis(1);
    private static final AtomicInteger POOLS = new AtomicInteger();

    private final JdbcConfig config;
    private final WorkerSql sql;
    private final Claimer claimer;
    private final HikariDataSource pool;
    private final int queryTimeoutSeconds;
    private volatile boolean schemaReady;

    JdbcRegistry(JdbcConfig config) {
        this.config = config;
        this.queryTimeoutSeconds = (int) Math.max(1, (config.timeout().toMillis() + 999) / 1000);
        this.sql = new WorkerSql(config.dialect(), queryTimeoutSeconds);
        this.claimer = new Claimer(sql, config.display());
        this.pool = new HikariDataSource(poolConfig(config, queryTimeoutSeconds));
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

    @Override
    public Claim claim(ClaimRequest r) throws RegistryException {
        if (r.leaseTtlMillis() > MAX_TTL_MILLIS) {
            throw new IllegalArgumentException("jdbc registry: lease TTL " + r.leaseTtlMillis()
                    + " ms is longer than one day");
        }
        try (Connection c = connect()) {
            ensureSchema(c);
            return claimer.claim(c, r);
        } catch (SQLException e) {
            throw failure("claim", e);
        }
    }

    @Override
    public long extend(Claim claim, long untilMillis) throws RegistryException {
        try (Connection c = connect(); PreparedStatement ps = sql.prepare(c, sql.extend)) {
            ps.setLong(1, untilMillis);
            ps.setLong(2, claim.leaseTtlMillis());
            WorkerSql.bindKey(ps, 3, claim.namespace(), claim.datacenterId(), claim.workerId());
            ps.setLong(6, claim.token());
            if (ps.executeUpdate() != 1) {
                throw leaseLost(claim);
            }
            // The UPDATE matched exactly generation = token and added one.
            return claim.token() + 1;
        } catch (SQLException e) {
            throw failure("extend", e);
        }
    }

    @Override
    public void release(Claim claim, long finalHwmMillis) throws RegistryException {
        try (Connection c = connect(); PreparedStatement ps = sql.prepare(c, sql.release)) {
            // May lower the HWM from the last reservation, never below the claim-time HWM.
            ps.setLong(1, Math.max(finalHwmMillis, claim.hwmMillis()));
            WorkerSql.bindKey(ps, 2, claim.namespace(), claim.datacenterId(), claim.workerId());
            ps.setLong(5, claim.token());
            if (ps.executeUpdate() != 1) {
                throw leaseLost(claim);
            }
        } catch (SQLException e) {
            throw failure("release", e);
        }
    }

    @Override
    public List<WorkerRecord> list(String namespace) throws RegistryException {
        try (Connection c = connect()) {
            ensureSchema(c);
            List<WorkerRecord> out = new ArrayList<>();
            try (PreparedStatement ps = sql.prepare(c, sql.list)) {
                ps.setString(1, namespace);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        out.add(new WorkerRecord(rs.getInt(1), rs.getInt(2), rs.getLong(3),
                                rs.getString(4), rs.getLong(5)));
                    }
                }
            }
            return out;
        } catch (SQLException e) {
            throw failure("list", e);
        }
    }

    /** Creates the tables unless they exist. Idempotent; used by {@code idmint registry init}. */
    void createSchema() throws RegistryException {
        try (Connection c = connect()) {
            ensureSchema(c);
        } catch (SQLException e) {
            throw failure("create the schema", e);
        }
    }

    @Override
    public void close() {
        pool.close();
    }

    private void ensureSchema(Connection c) throws SQLException {
        if (schemaReady) {
            return;
        }
        // PostgreSQL can fail one of two racing CREATE TABLE IF NOT EXISTS with a unique
        // violation in its catalog; the next attempt finds the table.
        for (int attempt = 1;; attempt++) {
            try (Statement s = c.createStatement()) {
                s.setQueryTimeout(queryTimeoutSeconds);
                for (String ddl : config.dialect().schemaStatements()) {
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

    private Connection connect() throws SQLException {
        return pool.getConnection();
    }

    private RegistryException leaseLost(Claim claim) {
        return new RegistryException(Kind.LEASE_LOST, "worker " + claim.workerId()
                + " of datacenter " + claim.datacenterId() + " in namespace " + claim.namespace()
                + ": fencing token " + claim.token() + " is stale (its lease ran out and another "
                + "node claimed it, or it was released)");
    }

    private RegistryException failure(String what, SQLException e) {
        String why = e instanceof SQLTimeoutException ? "timed out"
                : e instanceof SQLTransientConnectionException ? "no connection within "
                        + config.timeout().toMillis() + " ms"
                : "failed";
        return new RegistryException(Kind.UNAVAILABLE, "jdbc registry " + config.display() + ": "
                + what + " " + why + ": " + e.getMessage()
                + (e.getSQLState() == null ? "" : " [SQLState " + e.getSQLState() + "]"), e);
    }

    private static boolean isConnectionFailure(SQLException e) {
        return e.getSQLState() != null && e.getSQLState().startsWith("08");
    }
}

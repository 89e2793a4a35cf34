package io.idmint.jdbc;

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
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;

/**
 * A worker registry in an SQL database: one row per worker ID with its high-water mark, a
 * {@code generation} counter as the fencing token, the holder and a lease deadline on the
 * database server's clock. See {@link WorkerSql} for the statements.
 */
final class JdbcRegistry implements WorkerRegistry {

    private static final long MAX_TTL_MILLIS = TimeUnit.DAYS.toMillis(1);

    private final JdbcPool pool;
    private final WorkerSql sql;
    private final Claimer claimer;

    JdbcRegistry(JdbcConfig config) {
        this.pool = new JdbcPool(config);
        this.sql = new WorkerSql(config.dialect(), pool.queryTimeoutSeconds());
        this.claimer = new Claimer(sql, config.display());
    }

    @Override
    public Claim claim(ClaimRequest r) throws RegistryException {
        if (r.leaseTtlMillis() > MAX_TTL_MILLIS) {
            throw new IllegalArgumentException("jdbc registry: lease TTL " + r.leaseTtlMillis()
                    + " ms is longer than one day");
        }
        try (Connection c = pool.connect()) {
            return claimer.claim(c, r);
        } catch (SQLException e) {
            throw failure("claim", e);
        }
    }

    @Override
    public long extend(Claim claim, long untilMillis) throws RegistryException {
        try (Connection c = pool.connect(); PreparedStatement ps = sql.prepare(c, sql.extend)) {
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
        try (Connection c = pool.connect(); PreparedStatement ps = sql.prepare(c, sql.release)) {
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
        try (Connection c = pool.connect()) {
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

    /** The database server's clock: the same one that times the leases. */
    @Override
    public OptionalLong storeTimeMillis() throws RegistryException {
        try (Connection c = pool.connect(); PreparedStatement ps = sql.prepare(c, sql.storeTime);
                ResultSet rs = ps.executeQuery()) {
            if (!rs.next()) {
                throw new SQLException("no row from " + sql.storeTime);
            }
            return OptionalLong.of(rs.getLong(1));
        } catch (SQLException e) {
            throw failure("read the database clock", e);
        }
    }

    /** Creates the tables unless they exist. Idempotent; used by {@code idmint registry init}. */
    void createSchema() throws RegistryException {
        try (Connection c = pool.connect()) {
            // connecting creates the tables
        } catch (SQLException e) {
            throw failure("create the schema", e);
        }
    }

    @Override
    public void close() {
        pool.close();
    }

    private RegistryException leaseLost(Claim claim) {
        return new RegistryException(Kind.LEASE_LOST, "worker " + claim.workerId()
                + " of datacenter " + claim.datacenterId() + " in namespace " + claim.namespace()
                + ": fencing token " + claim.token() + " is stale (its lease ran out and another "
                + "node claimed it, or it was released)");
    }

    private RegistryException failure(String what, SQLException e) {
        return pool.unavailable(what, e);
    }
}

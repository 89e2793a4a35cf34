package io.idmint.jdbc;

import io.idmint.spi.Claim;
import io.idmint.spi.ClaimRequest;
import io.idmint.spi.RegistryException;
import io.idmint.spi.RegistryException.Kind;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The claim step: checks the namespace's layout and the datacenter's name, then takes the
 * preferred worker when free, else the lowest free one whose HWM is not ahead of the database's
 * clock (a never-used ID counts as HWM 0), else the coldest, with one conditional UPDATE per
 * candidate. Losing a race just moves on to the next candidate.
 */
final class Claimer {

    /** Free workers considered per round; more only matter when many nodes race. */
    private static final int CANDIDATES = 8;
    /** Rounds of losing every candidate to other claimers before reporting UNAVAILABLE. */
    private static final int ROUNDS = 8;
    private static final int MAX_HOLDER = 255;

    private final WorkerSql sql;
    private final String display;

    Claimer(WorkerSql sql, String display) {
        this.sql = sql;
        this.display = display;
    }

    Claim claim(Connection c, ClaimRequest r) throws SQLException, RegistryException {
        checkLayout(c, r);
        checkDatacenter(c, r);
        for (int round = 0; round < ROUNDS; round++) {
            List<Candidate> candidates = candidates(c, r);
            if (candidates.isEmpty()) {
                throw new RegistryException(Kind.POOL_FULL, "all " + (r.maxWorkerId() + 1)
                        + " worker IDs of datacenter " + r.datacenterId() + " in namespace "
                        + r.namespace() + " are held (" + display + ")");
            }
            for (Candidate k : candidates) {
                if (k.unused) {
                    insertIgnoringDuplicate(c, sql.insertWorker, r.namespace(), r.datacenterId(),
                            k.workerId);
                }
                Claim won = take(c, r, k);
                if (won != null) {
                    return won;
                }
            }
        }
        throw new RegistryException(Kind.UNAVAILABLE, "other nodes took every free worker ID "
                + "first, " + ROUNDS + " times in a row; retrying later");
    }

    /** A free worker, or a never-used one (no row yet, HWM 0); settled: HWM not ahead. */
    private record Candidate(int workerId, long hwm, long generation, boolean unused,
            boolean settled) {
    }

    /**
     * The preferred worker when free; then the free ones whose HWM is not ahead of the clock by
     * ID, never-used ones counting as 0; then the coldest.
     */
    private List<Candidate> candidates(Connection c, ClaimRequest r) throws SQLException {
        List<Candidate> out = new ArrayList<>();
        int preferred = r.preferredWorkerId();
        if (preferred >= 0) {
            try (PreparedStatement ps = sql.prepare(c, sql.selectWorker)) {
                WorkerSql.bindKey(ps, 1, r.namespace(), r.datacenterId(), preferred);
                try (ResultSet rs = ps.executeQuery()) {
                    if (!rs.next()) {
                        out.add(new Candidate(preferred, 0, 0, true, true));
                    } else if (rs.getInt(3) == 1) {
                        out.add(new Candidate(preferred, rs.getLong(1), rs.getLong(2), false,
                                true));
                    }
                }
            }
        }
        List<Candidate> rest = new ArrayList<>();
        try (PreparedStatement ps = sql.prepare(c, sql.selectLowestUnused)) {
            ps.setString(1, r.namespace());
            ps.setInt(2, r.datacenterId());
            ps.setInt(3, r.maxWorkerId());
            ps.setString(4, r.namespace());
            ps.setInt(5, r.datacenterId());
            try (ResultSet rs = ps.executeQuery()) {
                if (rs.next()) {
                    int w = rs.getInt(1);
                    if (!rs.wasNull() && w != preferred) {
                        rest.add(new Candidate(w, 0, 0, true, true));
                    }
                }
            }
        }
        try (PreparedStatement ps = sql.prepare(c, sql.selectFree)) {
            ps.setString(1, r.namespace());
            ps.setInt(2, r.datacenterId());
            ps.setInt(3, r.maxWorkerId());
            ps.setInt(4, CANDIDATES);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    int w = rs.getInt(1);
                    if (w != preferred) {
                        rest.add(new Candidate(w, rs.getLong(2), rs.getLong(3), false,
                                rs.getInt(4) == 1));
                    }
                }
            }
        }
        rest.sort(Comparator.comparing((Candidate k) -> !k.settled())
                .thenComparingLong(k -> k.settled() ? k.workerId() : k.hwm())
                .thenComparingInt(Candidate::workerId));
        out.addAll(rest);
        return out;
    }

    /**
     * One conditional UPDATE takes the worker if it is still free at the generation we saw; the
     * HWM and new generation are read back in the same transaction, under the row lock.
     */
    private Claim take(Connection c, ClaimRequest r, Candidate k) throws SQLException {
        String holder = r.holder().length() > MAX_HOLDER ? r.holder().substring(0, MAX_HOLDER)
                : r.holder();
        c.setAutoCommit(false);
        try {
            int updated;
            try (PreparedStatement ps = sql.prepare(c, sql.take)) {
                ps.setString(1, holder);
                ps.setLong(2, r.leaseTtlMillis());
                WorkerSql.bindKey(ps, 3, r.namespace(), r.datacenterId(), k.workerId);
                ps.setLong(6, k.generation);
                updated = ps.executeUpdate();
            }
            if (updated != 1) {
                c.rollback();
                return null;
            }
            long hwm;
            long generation;
            try (PreparedStatement ps = sql.prepare(c, sql.readBack)) {
                WorkerSql.bindKey(ps, 1, r.namespace(), r.datacenterId(), k.workerId);
                try (ResultSet rs = ps.executeQuery()) {
                    if (!rs.next()) {
                        throw new SQLException("worker row vanished inside its own transaction");
                    }
                    hwm = rs.getLong(1);
                    generation = rs.getLong(2);
                }
            }
            c.commit();
            return new Claim(r.namespace(), r.datacenterId(), k.workerId, generation, hwm,
                    r.leaseTtlMillis());
        } catch (SQLException | RuntimeException e) {
            rollbackQuietly(c, e);
            throw e;
        } finally {
            restoreAutoCommit(c);
        }
    }

    private void checkLayout(Connection c, ClaimRequest r) throws SQLException, RegistryException {
        insertIgnoringDuplicate(c, sql.insertNamespace, r.namespace(), r.layoutSpec());
        String stored = selectString(c, sql.selectLayout, r.namespace());
        if (!r.layoutSpec().equals(stored)) {
            throw new RegistryException(Kind.CONFLICT, "namespace " + r.namespace() + " uses "
                    + "layout '" + stored + "', not '" + r.layoutSpec() + "'");
        }
    }

    private void checkDatacenter(Connection c, ClaimRequest r)
            throws SQLException, RegistryException {
        if (r.datacenterName().isEmpty()) {
            return;
        }
        insertIgnoringDuplicate(c, sql.insertDatacenter, r.namespace(), r.datacenterId(),
                r.datacenterName());
        String stored = selectString(c, sql.selectDatacenterName, r.namespace(), r.datacenterId());
        if (!r.datacenterName().equals(stored)) {
            throw new RegistryException(Kind.CONFLICT, "datacenter " + r.datacenterId() + " is '"
                    + stored + "' in namespace " + r.namespace() + ", not '"
                    + r.datacenterName() + "'");
        }
    }

    private void insertIgnoringDuplicate(Connection c, String insert, Object... args)
            throws SQLException {
        try (PreparedStatement ps = sql.prepare(c, insert)) {
            WorkerSql.bind(ps, args);
            ps.executeUpdate();
        } catch (SQLException e) {
            // Someone inserted the same key between our MERGE's check and its insert (H2).
            if (e.getSQLState() == null || !e.getSQLState().startsWith("23")) {
                throw e;
            }
        }
    }

    private String selectString(Connection c, String select, Object... args) throws SQLException {
        try (PreparedStatement ps = sql.prepare(c, select)) {
            WorkerSql.bind(ps, args);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    throw new SQLException("row just inserted is missing: " + select);
                }
                return rs.getString(1);
            }
        }
    }

    private static void rollbackQuietly(Connection c, Exception cause) {
        try {
            c.rollback();
        } catch (SQLException e) {
            // The connection is likely gone; the pool discards it. Keep the first failure.
            cause.addSuppressed(e);
        }
    }

    private static void restoreAutoCommit(Connection c) {
        try {
            c.setAutoCommit(true);
        } catch (SQLException e) {
            // Broken connection: the pool evicts it (and resets auto-commit on any it keeps).
        }
    }
}

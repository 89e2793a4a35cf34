package io.idmint.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;

/**
 * The statements of the protocol for one dialect. Each step that changes a worker is one
 * conditional {@code UPDATE} whose {@code WHERE} carries the fencing token ({@code generation});
 * lease expiry is always judged by the database server's clock.
 */
final class WorkerSql {

    private static final String KEY = "namespace = ? AND datacenter_id = ? AND worker_id = ?";

    final String insertNamespace;
    final String selectLayout = "SELECT layout FROM idmint_namespace WHERE namespace = ?";
    final String insertDatacenter;
    final String selectDatacenterName =
            "SELECT name FROM idmint_datacenter WHERE namespace = ? AND datacenter_id = ?";
    /** Pre-creates a never-used worker's row (HWM 0, generation 0, free). */
    final String insertWorker;
    /** One worker: hwm, generation, free (1/0). */
    final String selectWorker;
    /**
     * Free workers of a datacenter up to a maximum ID (hwm, generation, 1 when the HWM is not
     * ahead of the server's clock): those by ID first, then the rest coldest first.
     */
    final String selectFree;
    /** The lowest worker ID in 0..max that has no row yet, or NULL. */
    final String selectLowestUnused;
    /** Takes a free worker: 1 row updated = won. */
    final String take;
    final String readBack = "SELECT hwm, generation FROM idmint_worker WHERE " + KEY;
    final String extend;
    final String release;
    final String list;
    /** The database server's current time in Unix ms. */
    final String storeTime;
    private final int queryTimeoutSeconds;

    WorkerSql(Dialect d, int queryTimeoutSeconds) {
        this.queryTimeoutSeconds = queryTimeoutSeconds;
        String now = d.now();
        String free = "(holder = '' OR lease_until IS NULL OR lease_until < " + now + ")";
        String held = "(holder <> '' AND lease_until >= " + now + ")";
        insertNamespace = d.insertIgnore("idmint_namespace", new String[] {"namespace", "layout"},
                new String[] {"VARCHAR(64)", "VARCHAR(255)"}, 1);
        insertDatacenter = d.insertIgnore("idmint_datacenter",
                new String[] {"namespace", "datacenter_id", "name"},
                new String[] {"VARCHAR(64)", "INTEGER", "VARCHAR(64)"}, 2);
        insertWorker = d.insertIgnore("idmint_worker",
                new String[] {"namespace", "datacenter_id", "worker_id"},
                new String[] {"VARCHAR(64)", "INTEGER", "INTEGER"}, 3);
        selectWorker = "SELECT hwm, generation, CASE WHEN " + free + " THEN 1 ELSE 0 END"
                + " FROM idmint_worker WHERE " + KEY;
        String settled = "hwm <= " + d.epochMillis(now);
        selectFree = "SELECT worker_id, hwm, generation, CASE WHEN " + settled + " THEN 1 ELSE 0"
                + " END FROM idmint_worker"
                + " WHERE namespace = ? AND datacenter_id = ? AND worker_id <= ? AND " + free
                + " ORDER BY CASE WHEN " + settled + " THEN 0 ELSE 1 END, CASE WHEN " + settled
                + " THEN worker_id ELSE hwm END, worker_id LIMIT ?";
        selectLowestUnused = "SELECT MIN(c.w) FROM (SELECT 0 AS w UNION ALL"
                + " SELECT worker_id + 1 FROM idmint_worker"
                + " WHERE namespace = ? AND datacenter_id = ? AND worker_id < ?) c"
                + " WHERE NOT EXISTS (SELECT 1 FROM idmint_worker x WHERE x.namespace = ?"
                + " AND x.datacenter_id = ? AND x.worker_id = c.w)";
        take = "UPDATE idmint_worker SET holder = ?, lease_until = " + d.nowPlusMillis()
                + ", generation = generation + 1 WHERE " + KEY + " AND generation = ? AND " + free;
        extend = "UPDATE idmint_worker SET hwm = GREATEST(hwm, ?), generation = generation + 1,"
                + " lease_until = " + d.nowPlusMillis() + " WHERE " + KEY + " AND generation = ?";
        release = "UPDATE idmint_worker SET hwm = ?, generation = generation + 1, holder = '',"
                + " lease_until = NULL WHERE " + KEY + " AND generation = ?";
        list = "SELECT datacenter_id, worker_id, hwm,"
                + " CASE WHEN " + held + " THEN holder ELSE '' END,"
                + " CASE WHEN " + held + " THEN " + d.epochMillis("lease_until") + " ELSE 0 END"
                + " FROM idmint_worker WHERE namespace = ? AND generation > 0"
                + " ORDER BY datacenter_id, worker_id";
        storeTime = "SELECT " + d.epochMillis(now);
    }

    /** A statement bounded by the query timeout, so a stuck database cannot hang a renewal. */
    PreparedStatement prepare(Connection c, String statement) throws SQLException {
        PreparedStatement ps = c.prepareStatement(statement);
        ps.setQueryTimeout(queryTimeoutSeconds);
        return ps;
    }

    /** Binds (namespace, datacenter_id, worker_id) from parameter {@code first} on. */
    static void bindKey(PreparedStatement ps, int first, String ns, int dc, int worker)
            throws SQLException {
        ps.setString(first, ns);
        ps.setInt(first + 1, dc);
        ps.setInt(first + 2, worker);
    }

    /** Binds strings and integers from parameter 1 on. */
    static void bind(PreparedStatement ps, Object... args) throws SQLException {
        for (int i = 0; i < args.length; i++) {
            if (args[i] instanceof Integer) {
                ps.setInt(i + 1, (Integer) args[i]);
            } else {
                ps.setString(i + 1, (String) args[i]);
            }
        }
    }
}

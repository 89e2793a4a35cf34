package io.idmint.jdbc;

import io.idmint.spi.Range;
import io.idmint.spi.RangeStore;
import io.idmint.spi.RegistryException;
import io.idmint.spi.RegistryException.Kind;
import io.idmint.spi.TagInfo;
import io.idmint.spi.UnknownTagException;
import io.idmint.spi.support.TagValue;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Segment ranges from an existing Leaf table {@code leaf_alloc(biz_tag, max_id, step, …)}, with
 * Leaf's own semantics, so Leaf servers and idmint nodes can serve one tag at the same time
 * (docs/migration.md). An allocation is Leaf's transaction: {@code UPDATE leaf_alloc SET max_id
 * = max_id + step} (the first, {@link #TAG_STEP}) or {@code + ?} (an adaptive size, as Leaf's
 * own dynamic step does), then the row read back, then commit; the range is
 * {@code [max_id - size, max_id)} of the new {@code max_id}, as Leaf serves it. The row lock
 * orders every client, Leaf's and idmint's, so ranges are disjoint whatever size each takes.
 *
 * <p>idmint never creates or alters the table and never writes {@code step} (Leaf servers keep
 * using it as their base step). The UPDATE matches only a sound row ({@code step} from 1,
 * {@code max_id} from 0, the sum at most {@link #LIMIT}), so a bad row takes nothing and is
 * refused with its {@code biz_tag} named. Tags created here (auto-creation) are Leaf-shaped rows.
 */
final class LeafAllocStore implements RangeStore {

    static final String TABLE = "leaf_alloc";
    /**
     * The largest {@code max_id} an allocation may reach: 2^63 - 1, past which Leaf's own
     * {@code max_id + step} overflows a BIGINT. (The segment generator serves values up to 2^62
     * only and refuses a range above, naming the tag.)
     */
    static final long LIMIT = Long.MAX_VALUE;
    /** The description of a row auto-creation inserts. */
    static final String CREATED = "created by idmint";

    private static final String SOUND = "biz_tag = ? AND step >= 1 AND max_id >= 0";
    /** With biz_tag: a case-insensitive collation (MySQL's usual) matches another case too. */
    private static final String READ =
            "SELECT max_id, step, biz_tag FROM leaf_alloc WHERE biz_tag = ?";
    private static final String INSERT = "INSERT INTO leaf_alloc (biz_tag, max_id, step, "
            + "description, update_time) VALUES (?, ?, ?, ?, CURRENT_TIMESTAMP)";
    private static final String LIST = "SELECT biz_tag, max_id, step FROM leaf_alloc";

    private final JdbcPool pool;
    private final String where;
    /** Bound 1: LIMIT, 2: 2^40, 3: tag. Leaf's own statement, guarded. */
    private final String byStep;
    /** Bound 1: size, 2: tag, 3: LIMIT - size. Leaf's custom-step statement, guarded. */
    private final String bySize;

    LeafAllocStore(JdbcConfig config) {
        this.pool = new JdbcPool(config);
        this.where = "table leaf_alloc in " + config.display();
        String bigint = config.dialect() == Dialect.MYSQL ? "CAST(? AS SIGNED)"
                : "CAST(? AS BIGINT)";
        // GREATEST: a negative step (refused by SOUND) must not overflow the subtraction first
        this.byStep = "UPDATE leaf_alloc SET max_id = max_id + step WHERE max_id <= " + bigint
                + " - GREATEST(step, 1) AND step <= " + bigint + " AND " + SOUND;
        this.bySize = "UPDATE leaf_alloc SET max_id = max_id + " + bigint + " WHERE " + SOUND
                + " AND max_id <= " + bigint;
    }

    @Override
    public Range allocate(String tag, long size) throws RegistryException {
        TagValue.checkAllocation(tag, size);
        String what = "allocate " + (size == TAG_STEP ? "a step" : size) + " of tag '" + tag
                + "'";
        try {
            return pool.allocate(where, what, c -> increment(c, tag, size));
        } catch (SQLException e) {
            throw failed(what, e);
        }
    }

    /** The guarded UPDATE and the read-back, in the caller's transaction. */
    private Range increment(Connection c, String tag, long size)
            throws SQLException, RegistryException {
        int updated;
        if (size == TAG_STEP) {
            try (PreparedStatement ps = pool.prepare(c, byStep)) {
                ps.setLong(1, LIMIT);
                ps.setLong(2, MAX_STEP);
                ps.setString(3, tag);
                updated = ps.executeUpdate();
            }
        } else {
            try (PreparedStatement ps = pool.prepare(c, bySize)) {
                ps.setLong(1, size);
                ps.setString(2, tag);
                ps.setLong(3, LIMIT - size);
                updated = ps.executeUpdate();
            }
        }
        Long[] row = read(c, tag);
        if (updated != 1) {
            throw refused(tag, row, size);
        }
        long n = size == TAG_STEP ? row[1] : size;
        return new Range(row[0] - n, row[0]);
    }

    /**
     * The row's max_id and step (either may be null), or UnknownTagException. Tags compare
     * exactly, as on every store and in Leaf's own cache: a row the table's collation matches
     * in another letter case or with trailing spaces ({@code Order} for {@code order} on MySQL's
     * {@code _ci} collations) is not the tag's, and what the caller's UPDATE took from it is
     * rolled back.
     */
    private Long[] read(Connection c, String tag) throws SQLException {
        try (PreparedStatement ps = pool.prepare(c, READ)) {
            ps.setString(1, tag);
            try (ResultSet rs = ps.executeQuery()) {
                String row = rs.next() ? rs.getString(3) : null;
                if (!tag.equals(row)) {
                    throw new UnknownTagException(tag, "segment tag '" + tag + "' is not a "
                            + "biz_tag of " + where + (row == null ? "" : " (the table's "
                            + "collation matched biz_tag '" + row + "'; tags compare exactly)")
                            + "; add its "
                            + "row as for Leaf (INSERT INTO leaf_alloc (biz_tag, max_id, step) "
                            + "VALUES ('" + tag + "', 1, 1000)), or turn on "
                            + "segment.auto-create");
                }
                long maxId = rs.getLong(1);
                Long max = rs.wasNull() ? null : maxId;
                long step = rs.getLong(2);
                return new Long[] {max, rs.wasNull() ? null : step};
            }
        }
    }

    /** Why the guarded UPDATE matched no row, naming the row. */
    private RegistryException refused(String tag, Long[] row, long size) {
        Long max = row[0];
        Long step = row[1];
        long n = size == TAG_STEP && step != null ? step : size;
        String why;
        if (max == null || step == null) {
            why = "has max_id " + max + " and step " + step + "; neither may be NULL";
        } else if (step < 1) {
            why = "has step " + step + ", not >= 1: a Leaf server would hand out its values "
                    + "again";
        } else if (size == TAG_STEP && step > MAX_STEP) {
            why = "has step " + step + ", above 2^40";
        } else if (max < 0) {
            why = "has max_id " + max + ", below 0";
        } else if (max > LIMIT - n) {
            why = "has max_id " + max + ": plus " + n + " it would overflow a BIGINT (past "
                    + LIMIT + ")";
        } else {
            return new RegistryException(Kind.UNAVAILABLE, where + ": row biz_tag='" + tag
                    + "' changed while it was read (max_id " + max + ", step " + step
                    + "); try again");
        }
        return new RegistryException(Kind.CORRUPT, where + ": row biz_tag='" + tag + "' " + why
                + "; nothing was taken from it; fix the row by hand");
    }

    /** A missing table is named as such (idmint never creates it); else the store failed. */
    private RegistryException failed(String what, SQLException e) {
        String state = e.getSQLState();
        // MySQL, MariaDB and H2: 42S02 (H2: 42S04 in an empty database); PostgreSQL: 42P01
        boolean noTable = "42S02".equals(state) || "42S04".equals(state)
                || "42P01".equals(state);
        if (noTable) {
            return new RegistryException(Kind.CORRUPT, where + ": " + what + ": the table does "
                    + "not exist; idmint serves an existing Leaf table and never creates it "
                    + "(create it with Leaf's scripts/leaf_alloc.sql, or leave idmint.table out "
                    + "for idmint's own table): " + JdbcPool.describe(e), e);
        }
        return pool.unavailable(what, e);
    }

    /**
     * Inserts a Leaf-shaped row: {@code max_id} the start (Leaf's first range then starts
     * there too), {@code step} as given, which must fit Leaf's {@code int} column.
     */
    @Override
    public void create(String tag, long start, long step) throws RegistryException {
        TagValue.created(tag, start, step);
        if (step > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("segment step " + step + " does not fit "
                    + "leaf_alloc.step, an int (at most " + Integer.MAX_VALUE + ")");
        }
        try (Connection c = pool.connect(); PreparedStatement ps = pool.prepare(c, INSERT)) {
            ps.setString(1, tag);
            ps.setLong(2, start);
            ps.setInt(3, (int) step);
            ps.setString(4, CREATED);
            ps.executeUpdate();
        } catch (SQLException e) {
            if (JdbcPool.isDuplicateKey(e)) {
                throw new RegistryException(Kind.CONFLICT, "segment tag '" + tag + "' exists "
                        + "already in " + where, e);
            }
            throw failed("create tag '" + tag + "'", e);
        }
    }

    /** Every row; one with a NULL max_id or step is refused, naming it. */
    @Override
    public List<TagInfo> tags() throws RegistryException {
        List<TagInfo> out = new ArrayList<>();
        try (Connection c = pool.connect(); PreparedStatement ps = pool.prepare(c, LIST);
                ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                String tag = rs.getString(1);
                long max = rs.getLong(2);
                boolean nullMax = rs.wasNull();
                long step = rs.getLong(3);
                if (nullMax || rs.wasNull()) {
                    throw new RegistryException(Kind.CORRUPT, where + ": row biz_tag='" + tag
                            + "' has a NULL max_id or step; fix the row by hand");
                }
                out.add(new TagInfo(tag, max, step));
            }
        } catch (SQLException e) {
            throw failed("list the tags", e);
        }
        // In Java, not ORDER BY: the database's collation need not sort like String does.
        out.sort(Comparator.comparing(TagInfo::tag));
        return out;
    }

    @Override
    public void define(String name, String definition) {
        throw noDefinitions();
    }

    @Override
    public String definition(String name) {
        throw noDefinitions();
    }

    @Override
    public java.util.SortedMap<String, String> definitions() {
        throw noDefinitions();
    }

    /** Why serials are refused here: Leaf's table has no place for a definition. */
    private static UnsupportedOperationException noDefinitions() {
        return new UnsupportedOperationException("serials are not kept in Leaf's leaf_alloc "
                + "table: it has a row per biz_tag with max_id and step, and no place for a "
                + "serial's definition, which every node must read the same; serve serials "
                + "from idmint's own table (segment.table=idmint_segment, the default) or "
                + "another segment store");
    }

    @Override
    public void close() {
        pool.close();
    }
}

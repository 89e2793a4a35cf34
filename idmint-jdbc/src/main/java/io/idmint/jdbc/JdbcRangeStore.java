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
 * Segment ranges from the table {@code idmint_segment}: one row per (namespace, tag) holding the
 * first value of the tag's next allocation and the step it was created with. An allocation is
 * one transaction: {@code UPDATE … SET next_id = next_id + size} (the row lock orders racing
 * clients), then the new value read back, then commit. A commit whose answer is lost leaves the
 * outcome unknown: the values count as taken and are never handed out.
 */
final class JdbcRangeStore implements RangeStore {

    private static final String KEY = "namespace = ? AND tag = ?";
    /** The longest tag the table's {@code tag VARCHAR(64)} holds. */
    static final int MAX_TAG = 64;

    /** Bound 1: size, 2: namespace, 3: tag, 4: the highest next_id that does not overflow. */
    private static final String INCREMENT = "UPDATE idmint_segment SET next_id = next_id + ?"
            + " WHERE " + KEY + " AND next_id <= ?";
    private static final String READ = "SELECT next_id, step FROM idmint_segment WHERE " + KEY;
    private static final String INSERT =
            "INSERT INTO idmint_segment (namespace, tag, next_id, step) VALUES (?, ?, ?, ?)";
    private static final String LIST =
            "SELECT tag, next_id, step FROM idmint_segment WHERE namespace = ?";

    private static final String DEFINE =
            "INSERT INTO idmint_serial (namespace, name, definition) VALUES (?, ?, ?)";
    private static final String DEFINITION =
            "SELECT definition FROM idmint_serial WHERE namespace = ? AND name = ?";
    private static final String DEFINITIONS =
            "SELECT name, definition FROM idmint_serial WHERE namespace = ?";

    private final JdbcPool pool;
    private final String namespace;
    private final String where;

    JdbcRangeStore(JdbcConfig config) {
        this(config, new JdbcPool(config));
    }

    JdbcRangeStore(JdbcConfig config, JdbcPool pool) {
        this.pool = pool;
        this.namespace = config.namespace();
        this.where = config.use().label() + " " + config.display() + " (namespace '" + namespace
                + "')";
    }

    @Override
    public Range allocate(String tag, long size) throws RegistryException {
        TagValue.checkAllocation(tag, size);
        requireFits(tag);
        String what = "allocate " + (size == TAG_STEP ? "a step" : size) + " of tag '" + tag
                + "'";
        try {
            return pool.allocate(where, what, c -> increment(c, tag, size));
        } catch (SQLException e) {
            throw pool.unavailable(what, e);
        }
    }

    /**
     * The UPDATE and the read-back, in the caller's transaction. {@link #TAG_STEP} first reads
     * the tag's step (fixed at creation, so no race).
     */
    private Range increment(Connection c, String tag, long size)
            throws SQLException, RegistryException {
        long n = size;
        if (size == TAG_STEP) {
            n = read(c, tag)[1];
            if (n < 1 || n > MAX_STEP) {
                throw new RegistryException(Kind.CORRUPT, where + ": tag '" + tag + "' has step "
                        + n + ", not between 1 and 2^40: the table was changed by hand");
            }
        }
        try (PreparedStatement ps = pool.prepare(c, INCREMENT)) {
            ps.setLong(1, n);
            ps.setString(2, namespace);
            ps.setString(3, tag);
            ps.setLong(4, Long.MAX_VALUE - n);
            for (int attempt = 1; ps.executeUpdate() != 1; attempt++) {
                // No row matched: the tag is missing (the read says so), the sum would pass
                // Long.MAX_VALUE, or another client created the tag between the UPDATE and the
                // read (two nodes reaching a new serial period at once): then the UPDATE, a new
                // statement at read committed, sees it.
                long next = read(c, tag)[0];
                if (next > Long.MAX_VALUE - n) {
                    throw new RegistryException(Kind.CORRUPT, where + ": tag '" + tag + "' would "
                            + "overflow: next value " + next + " plus " + n + " is past "
                            + Long.MAX_VALUE);
                }
                if (attempt == 10) {
                    throw new RegistryException(Kind.UNAVAILABLE, where + ": tag '" + tag
                            + "' reads as next value " + next + ", yet 10 updates of it in a "
                            + "row matched no row; retry later");
                }
            }
        }
        long end = read(c, tag)[0];
        if (end < n) {
            throw new RegistryException(Kind.CORRUPT, where + ": tag '" + tag + "' held next_id "
                    + (end - n) + ", below 0: the table was changed by hand");
        }
        return new Range(end - n, end);
    }

    /** The tag's next_id and step. */
    private long[] read(Connection c, String tag) throws SQLException {
        try (PreparedStatement ps = pool.prepare(c, READ)) {
            ps.setString(1, namespace);
            ps.setString(2, tag);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    throw new UnknownTagException(tag, "segment tag '" + tag + "' does not exist "
                            + "in " + where);
                }
                return new long[] {rs.getLong(1), rs.getLong(2)};
            }
        }
    }

    /** A valid tag longer than the table's column is refused, not cut or failed in SQL. */
    private static void requireFits(String tag) {
        if (tag.length() > MAX_TAG) {
            throw new IllegalArgumentException("segment tag '" + tag + "' has " + tag.length()
                    + " characters; table idmint_segment holds at most " + MAX_TAG + " (a Leaf "
                    + "leaf_alloc table holds 128: idmint.table=leaf_alloc)");
        }
    }

    @Override
    public void create(String tag, long start, long step) throws RegistryException {
        TagValue.created(tag, start, step);
        requireFits(tag);
        try (Connection c = pool.connect(); PreparedStatement ps = pool.prepare(c, INSERT)) {
            ps.setString(1, namespace);
            ps.setString(2, tag);
            ps.setLong(3, start);
            ps.setLong(4, step);
            ps.executeUpdate();
        } catch (SQLException e) {
            if (JdbcPool.isDuplicateKey(e)) {
                throw new RegistryException(Kind.CONFLICT, "segment tag '" + tag + "' exists "
                        + "already in " + where, e);
            }
            throw pool.unavailable("create tag '" + tag + "'", e);
        }
    }

    @Override
    public List<TagInfo> tags() throws RegistryException {
        List<TagInfo> out = new ArrayList<>();
        try (Connection c = pool.connect(); PreparedStatement ps = pool.prepare(c, LIST)) {
            ps.setString(1, namespace);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(new TagInfo(rs.getString(1), rs.getLong(2), rs.getLong(3)));
                }
            }
        } catch (SQLException e) {
            throw pool.unavailable("list the tags", e);
        }
        // In Java, not ORDER BY: the database's collation need not sort like String does.
        out.sort(Comparator.comparing(TagInfo::tag));
        return out;
    }

    @Override
    public void define(String name, String definition) throws RegistryException {
        TagValue.checkDefinition(name, definition);
        requireFits(name);
        try (Connection c = pool.connect(); PreparedStatement ps = pool.prepare(c, DEFINE)) {
            ps.setString(1, namespace);
            ps.setString(2, name);
            ps.setString(3, definition);
            ps.executeUpdate();
            return;
        } catch (SQLException e) {
            if (!JdbcPool.isDuplicateKey(e)) {
                throw pool.unavailable("define serial '" + name + "'", e);
            }
        }
        TagValue.requireSameDefinition(name, definition, definition(name), where);
    }

    @Override
    public String definition(String name) throws RegistryException {
        try (Connection c = pool.connect(); PreparedStatement ps = pool.prepare(c, DEFINITION)) {
            ps.setString(1, namespace);
            ps.setString(2, name);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getString(1) : null;
            }
        } catch (SQLException e) {
            throw pool.unavailable("read serial '" + name + "'", e);
        }
    }

    @Override
    public java.util.SortedMap<String, String> definitions() throws RegistryException {
        java.util.SortedMap<String, String> out = new java.util.TreeMap<>();
        try (Connection c = pool.connect(); PreparedStatement ps = pool.prepare(c, DEFINITIONS)) {
            ps.setString(1, namespace);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.put(rs.getString(1), rs.getString(2));
                }
            }
        } catch (SQLException e) {
            throw pool.unavailable("list the serials", e);
        }
        return out;
    }

    /** Creates the table unless it exists. Idempotent. */
    void createSchema() throws RegistryException {
        try (Connection c = pool.connect()) {
            // connecting creates the table
        } catch (SQLException e) {
            throw pool.unavailable("create the schema", e);
        }
    }

    @Override
    public void close() {
        pool.close();
    }
}

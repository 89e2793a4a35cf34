package io.idmint.jdbc.shardid;

import io.idmint.IdParts;
import io.idmint.Layout;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Installs and verifies {@link ShardIdFunction}s over a JDBC connection to PostgreSQL. */
public final class ShardIdFunctions {

    private static final Pattern CONSTANT = Pattern.compile(
            "(?m)^\\s*(\\w+) CONSTANT (?:bigint|integer) := (-?\\d+);$");

    private ShardIdFunctions() {
    }

    /** What {@link #verify} found: no problems means the function is the layout's. */
    public record Verification(List<String> problems, long probeId, IdParts probe) {

        public boolean ok() {
            return problems.isEmpty();
        }
    }

    /**
     * Runs the install in one transaction: the shard registry and its row, the sequences and the
     * function. A shard or schema registered otherwise before fails it, changing nothing.
     */
    public static void install(Connection c, ShardIdFunction f) throws SQLException {
        boolean auto = c.getAutoCommit();
        c.setAutoCommit(false);
        try (Statement s = c.createStatement()) {
            for (String sql : f.statements()) {
                s.execute(sql);
            }
            c.commit();
        } catch (SQLException e) {
            c.rollback();
            throw e;
        } finally {
            c.setAutoCommit(auto);
        }
    }

    /** The shard a schema was registered with at its first install, if any. */
    public static OptionalInt configuredShard(Connection c, String schema) throws SQLException {
        if (!exists(c, "to_regclass('" + ShardIdFunction.REGISTRY_SCHEMA + ".shard')")) {
            return OptionalInt.empty();
        }
        try (PreparedStatement ps = c.prepareStatement("SELECT shard FROM "
                + ShardIdFunction.REGISTRY_SCHEMA + ".shard WHERE schema_name = ?")) {
            ps.setString(1, schema);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? OptionalInt.of(rs.getInt(1)) : OptionalInt.empty();
            }
        }
    }

    /**
     * Checks the installed function of {@code expected.schema()} against {@code expected}: its
     * registry row, its signature, every constant and then its whole text, its sequences; then
     * mints one probe ID (in a transaction rolled back, which burns that one ID) and decodes it
     * with the expected layout: its shard, and a time between two readings of the database's
     * clock taken around the call.
     */
    public static Verification verify(Connection c, ShardIdFunction expected)
            throws SQLException {
        List<String> problems = new ArrayList<>();
        String schema = expected.schema();
        checkRegistry(c, expected, problems);
        String source = null;
        try (PreparedStatement ps = c.prepareStatement("SELECT p.prosrc, "
                + "pg_get_function_arguments(p.oid), pg_get_function_result(p.oid), l.lanname, "
                + "p.provolatile FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace "
                + "JOIN pg_language l ON l.oid = p.prolang "
                + "WHERE n.nspname = ? AND p.proname = 'next_id'")) {
            ps.setString(1, schema);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    problems.add("no function " + expected.functionName() + "() is installed");
                } else {
                    source = rs.getString(1);
                    if (!rs.getString(2).isEmpty() || !"bigint".equals(rs.getString(3))
                            || !"plpgsql".equals(rs.getString(4))
                            || !"v".equals(rs.getString(5))) {
                        problems.add(expected.functionName() + "(" + rs.getString(2)
                                + ") returns " + rs.getString(3) + " in " + rs.getString(4)
                                + "; expected a volatile plpgsql function of no arguments "
                                + "returning bigint");
                    }
                }
            }
        }
        if (source != null) {
            compareSource(source, expected, problems);
        }
        for (String seq : List.of(expected.sequenceName(), expected.hwmName())) {
            if (!exists(c, "to_regclass('" + seq + "')")) {
                problems.add("sequence " + seq + " is missing");
            }
        }
        if (source == null) {
            return new Verification(problems, 0, null);
        }
        return probe(c, expected, problems);
    }

    private static void checkRegistry(Connection c, ShardIdFunction f, List<String> problems)
            throws SQLException {
        if (!exists(c, "to_regclass('" + ShardIdFunction.REGISTRY_SCHEMA + ".shard')")) {
            problems.add("the shard registry " + ShardIdFunction.REGISTRY_SCHEMA
                    + ".shard does not exist");
            return;
        }
        checkOneLayout(c, problems);
        try (PreparedStatement ps = c.prepareStatement("SELECT shard, layout FROM "
                + ShardIdFunction.REGISTRY_SCHEMA + ".shard WHERE schema_name = ?")) {
            ps.setString(1, f.schema());
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    problems.add("schema " + f.schema() + " has no shard in "
                            + ShardIdFunction.REGISTRY_SCHEMA + ".shard");
                    return;
                }
                if (rs.getInt(1) != f.shard()) {
                    problems.add("schema " + f.schema() + " is registered as shard "
                            + rs.getInt(1) + ", expected " + f.shard());
                }
                if (!rs.getString(2).equals(f.layout().spec())) {
                    problems.add("schema " + f.schema() + " is registered with layout "
                            + rs.getString(2) + ", expected " + f.layout().spec());
                }
            }
        }
    }

    /** A registry of more than one layout (installed before the install refused that). */
    private static void checkOneLayout(Connection c, List<String> problems) throws SQLException {
        List<String> layouts = new ArrayList<>();
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT layout, "
                + "string_agg(shard || ' (' || schema_name || ')', ', ' ORDER BY shard) FROM "
                + ShardIdFunction.REGISTRY_SCHEMA + ".shard GROUP BY layout ORDER BY min(shard)")) {
            while (rs.next()) {
                layouts.add(rs.getString(1) + ": shards " + rs.getString(2));
            }
        }
        if (layouts.size() > 1) {
            problems.add("the shard registry " + ShardIdFunction.REGISTRY_SCHEMA + ".shard holds "
                    + layouts.size() + " layouts (" + String.join("; ", layouts) + "); shards of "
                    + "two layouts in one database can mint the same ID: keep the shards of one "
                    + "layout here and move the others' functions to another database");
        }
    }

    /** Names each constant that differs; failing that, the first line that does. */
    private static void compareSource(String installed, ShardIdFunction f,
            List<String> problems) {
        Map<String, String> want = constants(f.body());
        Map<String, String> have = constants(installed);
        int before = problems.size();
        for (Map.Entry<String, String> e : want.entrySet()) {
            String value = have.get(e.getKey());
            if (value == null) {
                problems.add(f.functionName() + "() has no constant " + e.getKey()
                        + " (expected " + e.getValue() + ")");
            } else if (!value.equals(e.getValue())) {
                problems.add(f.functionName() + "() has " + e.getKey() + " = " + value
                        + ", expected " + e.getValue());
            }
        }
        if (problems.size() > before || installed.equals(f.body())) {
            return;
        }
        String[] a = installed.split("\n", -1);
        String[] b = f.body().split("\n", -1);
        for (int i = 0; i < Math.max(a.length, b.length); i++) {
            String x = i < a.length ? a[i] : "(end)";
            String y = i < b.length ? b[i] : "(end)";
            if (!x.equals(y)) {
                problems.add(f.functionName() + "() differs from the generated text at line "
                        + (i + 1) + ": '" + x.strip() + "', expected '" + y.strip() + "'");
                return;
            }
        }
    }

    private static Map<String, String> constants(String source) {
        Map<String, String> out = new LinkedHashMap<>();
        Matcher m = CONSTANT.matcher(source);
        while (m.find()) {
            out.put(m.group(1), m.group(2));
        }
        return out;
    }

    private static Verification probe(Connection c, ShardIdFunction f, List<String> problems)
            throws SQLException {
        Layout layout = f.layout();
        boolean auto = c.getAutoCommit();
        c.setAutoCommit(false);
        long before;
        long id;
        long after;
        try (Statement s = c.createStatement()) {
            before = clockMillis(s);
            try (ResultSet rs = s.executeQuery("SELECT " + f.functionName() + "()")) {
                rs.next();
                id = rs.getLong(1);
            } catch (SQLException e) {
                problems.add("the probe call " + f.functionName() + "() failed: "
                        + e.getMessage());
                return new Verification(problems, 0, null);
            }
            after = clockMillis(s);
        } finally {
            c.rollback();
            c.setAutoCommit(auto);
        }
        IdParts parts = layout.decode(id);
        if (id <= 0) {
            problems.add("the probe ID " + id + " is not positive");
        }
        if (parts.shardId() != f.shard()) {
            problems.add("the probe ID " + id + " decodes to shard " + parts.shardId()
                    + ", expected " + f.shard());
        }
        if (parts.timestampMillis() > after
                || parts.timestampMillis() + layout.tickMillis() <= before) {
            problems.add("the probe ID " + id + " decodes to time " + parts.timestamp()
                    + ", outside the database clock's readings around the call ("
                    + java.time.Instant.ofEpochMilli(before) + " .. "
                    + java.time.Instant.ofEpochMilli(after) + ")");
        }
        if (parts.sequence() >= f.modulus()) {
            problems.add("the probe ID " + id + " has sequence " + parts.sequence()
                    + ", not below the modulus " + f.modulus());
        }
        if (id != layout.compose(layout.tickOf(parts.timestampMillis()), 0, 0, parts.shardId(),
                parts.sequence())) {
            problems.add("the probe ID " + id + " has bits outside the layout's fields");
        }
        return new Verification(problems, id, parts);
    }

    private static long clockMillis(Statement s) throws SQLException {
        try (ResultSet rs = s.executeQuery(
                "SELECT floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static boolean exists(Connection c, String regclass) throws SQLException {
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT " + regclass + " IS NOT NULL")) {
            rs.next();
            return rs.getBoolean(1);
        }
    }
}

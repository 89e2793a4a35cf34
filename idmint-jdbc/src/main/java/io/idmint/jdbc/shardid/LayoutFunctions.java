package io.idmint.jdbc.shardid;

import io.idmint.Layout;
import io.idmint.Layout.Field;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * SQL functions that read a layout's IDs inside the database, for PostgreSQL and MySQL/MariaDB:
 * {@code idmint_time(id)} (the ID's time), one function per field the layout has ({@code
 * idmint_datacenter}, {@code idmint_worker}, {@code idmint_shard}, {@code idmint_sequence}), and
 * {@code idmint_lo(ts)} / {@code idmint_hi(ts)}, the bounds of a time window as IDs: {@code WHERE
 * id >= idmint_lo(a) AND id < idmint_hi(b)} selects exactly the IDs of {@link Layout#range(
 * Instant, Instant) range(a, b)}, so an index on the key serves "the orders of last Tuesday".
 *
 * <p>The constants (shifts, masks, tick, epoch) are written into the functions, which are
 * immutable and parallel safe. The field functions and {@code idmint_time} answer NULL for a
 * value that is no ID of the layout (negative, or using bits the layout has not); {@code
 * idmint_lo} and {@code idmint_hi} raise SQLSTATE 22008 for a time no ID of the layout can
 * carry. On MySQL/MariaDB times are UTC {@code DATETIME}s.
 */
public final class LayoutFunctions {

    /** The database the functions are written for. */
    public enum Dialect {
        /** PostgreSQL 12 and later. */
        POSTGRESQL,
        /** MySQL 8 and MariaDB 10.6 and later. */
        MYSQL;

        /**
         * The dialect of a JDBC URL.
         *
         * @throws IllegalArgumentException naming the URL's scheme when it is neither
         */
        public static Dialect ofUrl(String jdbcUrl) {
            if (jdbcUrl.startsWith("jdbc:postgresql:")) {
                return POSTGRESQL;
            }
            if (jdbcUrl.startsWith("jdbc:mysql:") || jdbcUrl.startsWith("jdbc:mariadb:")) {
                return MYSQL;
            }
            throw new IllegalArgumentException("'" + jdbcUrl.split("[?@]", 2)[0] + "' is "
                    + "neither jdbc:postgresql:, jdbc:mysql: nor jdbc:mariadb:");
        }
    }

    /** SQLSTATE raised by {@code idmint_lo}/{@code idmint_hi} for a time no ID can carry. */
    public static final String OUT_OF_RANGE = "22008";

    private static final Pattern SCHEMA = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,62}");

    private final Layout layout;
    private final Dialect dialect;
    private final String schema;

    private LayoutFunctions(Layout layout, Dialect dialect, String schema) {
        this.layout = layout;
        this.dialect = dialect;
        this.schema = schema;
    }

    /**
     * The functions for {@code layout}.
     *
     * @param schema the schema (PostgreSQL) or database (MySQL) to create them in; null for the
     *     connection's current one
     * @throws IllegalArgumentException when the layout uses all 64 bits (its IDs are not
     *     positive {@code bigint}s) or the schema is not a plain identifier
     */
    public static LayoutFunctions of(Layout layout, Dialect dialect, String schema) {
        if (layout.unsigned()) {
            throw new IllegalArgumentException("layout " + layout + " uses all 64 bits: its IDs "
                    + "are not positive bigints, so SQL cannot read or bound them");
        }
        if (schema != null && !SCHEMA.matcher(schema).matches()) {
            throw new IllegalArgumentException("schema '" + schema + "' is not a plain "
                    + "identifier ([A-Za-z_][A-Za-z0-9_]*, at most 63)");
        }
        return new LayoutFunctions(layout, dialect, schema);
    }

    /** The names of the functions, as created (with the schema, when one is given). */
    public List<String> functionNames() {
        List<String> names = new ArrayList<>();
        names.add(name("idmint_time"));
        for (Field field : parts()) {
            names.add(name("idmint_" + field.key()));
        }
        names.add(name("idmint_lo"));
        names.add(name("idmint_hi"));
        return names;
    }

    /** The statements that (re)create every function, in order. */
    public List<String> statements() {
        List<String> out = new ArrayList<>();
        boolean pg = dialect == Dialect.POSTGRESQL;
        long tick = layout.tickMillis();
        long epoch = layout.epochMillis();
        int timeShift = layout.shift(Field.TIME);
        String valid = "id >= 0" + (layout.totalBits() < 63
                ? " AND (id >> " + layout.totalBits() + ") = 0" : "");
        String millis = "((id >> " + timeShift + ") * " + tick + " + " + epoch + ")";
        if (pg) {
            out.add(pgSql("idmint_time", "id bigint", "timestamptz", "CASE WHEN " + valid
                    + " THEN timestamptz 'epoch' + " + millis + " * interval '1 millisecond' "
                    + "END"));
            for (Field f : parts()) {
                out.add(pgSql("idmint_" + f.key(), "id bigint", "bigint", "CASE WHEN " + valid
                        + " THEN (id >> " + layout.shift(f) + ") & " + layout.maxValue(f)
                        + " END"));
            }
        } else {
            out.add("DROP FUNCTION IF EXISTS " + name("idmint_time"));
            out.add("CREATE FUNCTION " + name("idmint_time") + "(id BIGINT) RETURNS DATETIME(3) "
                    + "DETERMINISTIC NO SQL RETURN CASE WHEN " + valid + " THEN TIMESTAMP"
                    + "'1970-01-01 00:00:00' + INTERVAL " + millis + " * 1000 MICROSECOND END");
            for (Field f : parts()) {
                out.add("DROP FUNCTION IF EXISTS " + name("idmint_" + f.key()));
                out.add("CREATE FUNCTION " + name("idmint_" + f.key()) + "(id BIGINT) RETURNS "
                        + "BIGINT DETERMINISTIC NO SQL RETURN CASE WHEN " + valid
                        + " THEN (id >> " + layout.shift(f) + ") & " + layout.maxValue(f)
                        + " END");
            }
        }
        out.addAll(bounds(pg, tick, epoch, timeShift));
        return out;
    }

    /**
     * {@code idmint_lo(ts)}: the first ID of the tick holding {@code ts}; {@code idmint_hi(ts)}:
     * the first ID of the tick after the one holding the last moment before {@code ts} (as
     * {@link Layout#range} computes them, from microseconds).
     */
    private List<String> bounds(boolean pg, long tick, long epoch, int timeShift) {
        long maxTick = layout.maxTick();
        String epochText = Instant.ofEpochMilli(epoch).toString();
        String lastText = Instant.ofEpochMilli(layout.millisOf(maxTick)).toString();
        String beforeEpoch = "is before the epoch " + epochText + " of layout "
                + layout.spec() + ": no ID has that time";
        String pastEnd = "reaches the last tick of layout " + layout.spec() + ", which starts "
                + "at " + lastText;
        List<String> out = new ArrayList<>();
        if (pg) {
            out.add(pgPlpgsql("idmint_lo", """
                    DECLARE ms bigint := floor(extract(epoch FROM ts) * 1000);
                    BEGIN
                      IF ms < %d THEN
                        RAISE EXCEPTION 'idmint_lo: %% %s', ts USING ERRCODE = '%s';
                      END IF;
                      IF (ms - %d) / %d >= %d THEN
                        RAISE EXCEPTION 'idmint_lo: %% %s', ts USING ERRCODE = '%s';
                      END IF;
                      RETURN ((ms - %d) / %d) << %d;
                    END""".formatted(epoch, beforeEpoch.replace("'", "''"), OUT_OF_RANGE,
                    epoch, tick, maxTick, pastEnd.replace("'", "''"), OUT_OF_RANGE, epoch, tick,
                    timeShift)));
            out.add(pgPlpgsql("idmint_hi", """
                    DECLARE last bigint := floor((extract(epoch FROM ts) * 1000000 - 1) / 1000);
                    BEGIN
                      IF last < %d THEN
                        RAISE EXCEPTION 'idmint_hi: %% %s', ts USING ERRCODE = '%s';
                      END IF;
                      IF (last - %d) / %d >= %d THEN
                        RAISE EXCEPTION 'idmint_hi: %% %s', ts USING ERRCODE = '%s';
                      END IF;
                      RETURN ((last - %d) / %d + 1) << %d;
                    END""".formatted(epoch, ("ends at or before the epoch " + epochText
                    + " of layout " + layout.spec() + ": no ID is before it").replace("'", "''"),
                    OUT_OF_RANGE, epoch, tick, maxTick, pastEnd.replace("'", "''"),
                    OUT_OF_RANGE, epoch, tick, timeShift)));
        } else {
            // Calendar arithmetic: MariaDB's TIMESTAMPDIFF on DATETIMEs follows the server's
            // time zone across a daylight-saving change.
            String micros = "(((TO_DAYS(ts) - 719528) * 86400 + HOUR(ts) * 3600 + MINUTE(ts) * 60"
                    + " + SECOND(ts)) * 1000000 + MICROSECOND(ts))";
            out.add("DROP FUNCTION IF EXISTS " + name("idmint_lo"));
            out.add("CREATE FUNCTION " + name("idmint_lo") + "(ts DATETIME(6)) RETURNS BIGINT "
                    + "DETERMINISTIC NO SQL BEGIN DECLARE ms BIGINT DEFAULT FLOOR(" + micros
                    + " / 1000); IF ms < " + epoch + " THEN SIGNAL SQLSTATE '" + OUT_OF_RANGE
                    + "' SET MESSAGE_TEXT = '" + mysqlText("idmint_lo: the time " + beforeEpoch)
                    + "'; END IF; IF (ms - " + epoch + ") DIV " + tick + " >= " + maxTick
                    + " THEN SIGNAL SQLSTATE '" + OUT_OF_RANGE + "' SET MESSAGE_TEXT = '"
                    + mysqlText("idmint_lo: the time " + pastEnd) + "'; END IF; RETURN (("
                    + "ms - " + epoch + ") DIV " + tick + ") << " + timeShift + "; END");
            out.add("DROP FUNCTION IF EXISTS " + name("idmint_hi"));
            out.add("CREATE FUNCTION " + name("idmint_hi") + "(ts DATETIME(6)) RETURNS BIGINT "
                    + "DETERMINISTIC NO SQL BEGIN DECLARE last BIGINT DEFAULT FLOOR((" + micros
                    + " - 1) / 1000); IF last < " + epoch + " THEN SIGNAL SQLSTATE '"
                    + OUT_OF_RANGE + "' SET MESSAGE_TEXT = '" + mysqlText("idmint_hi: the time "
                    + "ends at or before the epoch " + epochText + " of layout "
                    + layout.spec()) + "'; END IF; IF (last - " + epoch + ") DIV " + tick
                    + " >= " + maxTick + " THEN SIGNAL SQLSTATE '" + OUT_OF_RANGE
                    + "' SET MESSAGE_TEXT = '" + mysqlText("idmint_hi: the time " + pastEnd)
                    + "'; END IF; RETURN ((last - " + epoch + ") DIV " + tick + " + 1) << "
                    + timeShift + "; END");
        }
        return out;
    }

    /**
     * The statements as a script to review or run by hand: {@code ;}-terminated for PostgreSQL,
     * and between {@code DELIMITER} lines for the MySQL client.
     */
    public String script() {
        StringBuilder s = new StringBuilder("-- idmint layout functions: " + layout.spec()
                + "\n");
        if (dialect == Dialect.MYSQL) {
            s.append("DELIMITER //\n");
            for (String statement : statements()) {
                s.append(statement).append(" //\n");
            }
            return s.append("DELIMITER ;\n").toString();
        }
        for (String statement : statements()) {
            s.append(statement).append(";\n");
        }
        return s.toString();
    }

    /** Creates (or replaces) every function; on PostgreSQL in one transaction. */
    public void install(Connection c) throws SQLException {
        boolean auto = c.getAutoCommit();
        boolean transactional = dialect == Dialect.POSTGRESQL;
        if (transactional) {
            c.setAutoCommit(false);
        }
        try (Statement s = c.createStatement()) {
            for (String statement : statements()) {
                s.execute(statement);
            }
            if (transactional) {
                c.commit();
            }
        } catch (SQLException e) {
            if (transactional) {
                c.rollback();
            }
            throw e;
        } finally {
            c.setAutoCommit(auto);
        }
    }

    /** The layout the functions read. */
    public Layout layout() {
        return layout;
    }

    private List<Field> parts() {
        List<Field> parts = new ArrayList<>();
        for (Field f : List.of(Field.DATACENTER, Field.WORKER, Field.SHARD, Field.SEQUENCE)) {
            if (layout.bits(f) > 0) {
                parts.add(f);
            }
        }
        return parts;
    }

    private String name(String function) {
        return schema == null ? function : schema + "." + function;
    }

    private String pgSql(String function, String args, String returns, String body) {
        return "CREATE OR REPLACE FUNCTION " + name(function) + "(" + args + ") RETURNS "
                + returns + " LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$ SELECT " + body
                + " $$";
    }

    private String pgPlpgsql(String function, String body) {
        return "CREATE OR REPLACE FUNCTION " + name(function) + "(ts timestamptz) RETURNS bigint "
                + "LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$\n" + body + "\n$$";
    }

    private static String mysqlText(String text) {
        String t = text.replace("'", "''");
        return t.length() <= 128 ? t : t.substring(0, 125) + "...";
    }
}

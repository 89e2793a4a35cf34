package io.idmint.jdbc;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * What differs between the supported databases: the schema script, the server's clock, "insert
 * unless present", and Unix milliseconds of a stored timestamp. Everything else is standard SQL.
 */
enum Dialect {

    /** PostgreSQL 12+. Statement time is the transaction's start: a claim reads one "now". */
    POSTGRESQL("postgresql", "CURRENT_TIMESTAMP") {
        @Override
        String nowPlusMillis() {
            return "CURRENT_TIMESTAMP + CAST(? AS BIGINT) * INTERVAL '1 millisecond'";
        }

        @Override
        String epochMillis(String column) {
            return "CAST(FLOOR(EXTRACT(EPOCH FROM " + column + ") * 1000) AS BIGINT)";
        }

        @Override
        String insertIgnore(String table, String[] columns, String[] types, int keys) {
            return "INSERT INTO " + table + " (" + String.join(", ", columns) + ") VALUES ("
                    + placeholders(columns.length) + ") ON CONFLICT DO NOTHING";
        }
    },

    /**
     * MySQL 8.0+ and MariaDB 10.3+ (both drivers). Times are UTC {@code DATETIME}s, so the
     * session time zone never shifts a lease.
     */
    MYSQL("mysql", "UTC_TIMESTAMP(3)") {
        @Override
        String nowPlusMillis() {
            return "TIMESTAMPADD(MICROSECOND, CAST(? AS SIGNED) * 1000, UTC_TIMESTAMP(3))";
        }

        @Override
        String epochMillis(String column) {
            return "(TIMESTAMPDIFF(MICROSECOND, TIMESTAMP '1970-01-01 00:00:00', " + column
                    + ") DIV 1000)";
        }

        @Override
        String insertIgnore(String table, String[] columns, String[] types, int keys) {
            // Not INSERT IGNORE: that would also turn real errors (truncation) into warnings.
            return "INSERT INTO " + table + " (" + String.join(", ", columns) + ") VALUES ("
                    + placeholders(columns.length) + ") ON DUPLICATE KEY UPDATE " + columns[0]
                    + " = " + columns[0];
        }
    },

    /** H2 2.x, in-process or server mode. */
    H2("h2", "CURRENT_TIMESTAMP") {
        @Override
        String nowPlusMillis() {
            return "DATEADD(MILLISECOND, CAST(? AS BIGINT), CURRENT_TIMESTAMP)";
        }

        @Override
        String epochMillis(String column) {
            return "CAST(FLOOR(EXTRACT(EPOCH FROM " + column + ") * 1000) AS BIGINT)";
        }

        @Override
        String insertIgnore(String table, String[] columns, String[] types, int keys) {
            StringBuilder sql = new StringBuilder("MERGE INTO ").append(table)
                    .append(" t USING (VALUES (");
            for (int i = 0; i < columns.length; i++) {
                sql.append(i == 0 ? "" : ", ").append("CAST(? AS ").append(types[i]).append(')');
            }
            sql.append(")) s(").append(String.join(", ", columns)).append(") ON ");
            for (int i = 0; i < keys; i++) {
                sql.append(i == 0 ? "" : " AND ").append("t.").append(columns[i]).append(" = s.")
                        .append(columns[i]);
            }
            sql.append(" WHEN NOT MATCHED THEN INSERT (").append(String.join(", ", columns))
                    .append(") VALUES (");
            for (int i = 0; i < columns.length; i++) {
                sql.append(i == 0 ? "" : ", ").append("s.").append(columns[i]);
            }
            return sql.append(')').toString();
        }
    };

    private final String id;
    private final String now;

    Dialect(String id, String now) {
        this.id = id;
        this.now = now;
    }

    /** The dialect of a JDBC URL, or null when none is supported. */
    static Dialect of(String url) {
        String u = url.toLowerCase(Locale.ROOT);
        if (u.startsWith("jdbc:postgresql:")) {
            return POSTGRESQL;
        }
        if (u.startsWith("jdbc:mysql:") || u.startsWith("jdbc:mariadb:")) {
            return MYSQL;
        }
        if (u.startsWith("jdbc:h2:")) {
            return H2;
        }
        return null;
    }

    /** The database server's current time, as an SQL expression. */
    String now() {
        return now;
    }

    /** The server's time plus a bound number of milliseconds (one {@code ?}). */
    abstract String nowPlusMillis();

    /** Unix milliseconds of a timestamp column, as a BIGINT expression. */
    abstract String epochMillis(String column);

    /**
     * Inserts a row unless one with the same key (the first {@code keys} columns) exists; never
     * changes an existing row. A concurrent insert of the same key may still fail with a unique
     * violation on H2, which callers treat as "present".
     */
    abstract String insertIgnore(String table, String[] columns, String[] types, int keys);

    /** The statements of a schema script, in order. */
    List<String> schemaStatements(JdbcConfig.Use use) {
        String script = schemaScript(use);
        List<String> out = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        for (String line : script.split("\n")) {
            String t = line.trim();
            if (t.isEmpty() || t.startsWith("--")) {
                continue;
            }
            current.append(line).append('\n');
            if (t.endsWith(";")) {
                String stmt = current.toString().trim();
                out.add(stmt.substring(0, stmt.length() - 1));
                current.setLength(0);
            }
        }
        if (current.toString().trim().length() > 0) {
            out.add(current.toString().trim());
        }
        return out;
    }

    /**
     * A schema script as shipped: {@code io/idmint/jdbc/schema-<dialect>.sql} for the registry,
     * {@code segments-<dialect>.sql} for the segment store.
     */
    String schemaScript(JdbcConfig.Use use) {
        String name = use.script() + "-" + id + ".sql";
        try (InputStream in = Dialect.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("idmint-jdbc: resource " + name + " is missing");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("idmint-jdbc: cannot read " + name, e);
        }
    }

    private static String placeholders(int n) {
        return String.join(", ", java.util.Collections.nCopies(n, "?"));
    }
}

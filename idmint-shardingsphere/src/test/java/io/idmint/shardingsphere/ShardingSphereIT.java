package io.idmint.shardingsphere;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idmint.Layout;
import io.idmint.testkit.Together;
import io.idmint.testkit.fixture.PostgresServer;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * ShardingSphere-JDBC 5.5 routing real inserts into 4 real PostgreSQL databases with idmint's
 * algorithms: {@code IDMINT} keys (worker leased from idmint's registry) spread evenly by
 * {@code IDMINT_MOD} at 10,000 inserts a second and at 10 a second (where a sequence that starts
 * each millisecond at 0 puts every row in one database), never a duplicate key; {@code
 * IDMINT_SEGMENT} keys spread exactly; {@code IDMINT_INTERVAL} puts rows in their month's table
 * and a month's ID range reaches that table only; a bad property stops the data source, named.
 */
class ShardingSphereIT {

    /** χ² with 3 degrees of freedom above which evenness is refused: p = 10^-6. */
    private static final double CHI2_LIMIT = 30.66;
    private static final int SHARDS = 4;

    @RegisterExtension
    static final PostgresServer pg = PostgresServer.shared();

    @TempDir
    static Path dir;

    private static final List<String> urls = new ArrayList<>();

    @BeforeAll
    static void databases() throws SQLException {
        for (int i = 0; i < SHARDS; i++) {
            String url = pg.createDatabase("ds" + i);
            urls.add(url);
            try (Connection c = DriverManager.getConnection(url);
                 Statement s = c.createStatement()) {
                for (String table : List.of("t_order", "t_order_zero", "t_ticket")) {
                    s.execute("create table " + table + " (id bigint primary key, "
                            + "note varchar(20))");
                }
            }
        }
        try (Connection c = DriverManager.getConnection(urls.get(0));
             Statement s = c.createStatement()) {
            for (String month : List.of("202609", "202610", "202611", "202612")) {
                s.execute("create table t_event_" + month + " (id bigint primary key, "
                        + "note varchar(20))");
            }
        }
    }

    @Test
    void tenThousandPerSecond_multiRowInserts_evenAcrossFourDatabases_noDuplicateKey()
            throws Exception {
        DataSource sharded = dataSource("t_order", "IDMINT", "registry: static:",
                "data-dir: " + dir.resolve("fast"));
        // 20 rows every 2 ms: 10,000 a second, about 20 IDs in each millisecond.
        int rows = 0;
        long started = System.nanoTime();
        try (Connection c = sharded.getConnection()) {
            String values = String.join(",", java.util.Collections.nCopies(20, "(?)"));
            try (PreparedStatement insert = c.prepareStatement("insert into t_order (note) "
                    + "values " + values)) {
                long next = started;
                for (int batch = 0; batch < 1_000; batch++) {
                    for (int i = 1; i <= 20; i++) {
                        insert.setString(i, "fast");
                    }
                    rows += insert.executeUpdate();
                    next += TimeUnit.MILLISECONDS.toNanos(2);
                    TimeUnit.NANOSECONDS.sleep(Math.max(0, next - System.nanoTime()));
                }
            }
        }
        double perSecond = rows / ((System.nanoTime() - started) / 1e9);
        assertThat(rows).isEqualTo(20_000);
        assertThat(perSecond).as("inserts per second").isGreaterThan(2_000);

        long[] counts = counts("t_order", "fast");
        report("10,000/s in 20-row INSERTs", counts, perSecond);
        assertThat(sum(counts)).isEqualTo(20_000);
        distinctIds("t_order");
        assertThat(chi2(counts)).as("χ² of %s", java.util.Arrays.toString(counts))
                .isLessThan(CHI2_LIMIT);
    }

    @Test
    void tenPerSecond_randomStart_staysEven_whereAZeroStartFillsOneDatabase() throws Exception {
        DataSource random = dataSource("t_order", "IDMINT", "registry: static:",
                "data-dir: " + dir.resolve("slow"));
        DataSource zero = dataSource("t_order_zero", "IDMINT", "registry: static:",
                "data-dir: " + dir.resolve("zero"), "sequence.start: zero");
        int rows = 80;
        Together.run(1, () -> slowly(random, "t_order", rows), () -> slowly(zero,
                "t_order_zero", rows));

        long[] even = counts("t_order", "slow");
        report("10/s, sequence.start=random", even, 10);
        report("10/s, sequence.start=zero", counts("t_order_zero", "slow"), 10);
        assertThat(sum(even)).isEqualTo(rows);
        assertThat(chi2(even)).as("χ² of %s", java.util.Arrays.toString(even))
                .isLessThan(CHI2_LIMIT);
        // Every ID minted alone in its millisecond ends in sequence 0: id % 4 == 0.
        assertThat(counts("t_order_zero", "slow")).containsExactly(rows, 0, 0, 0);
    }

    @Test
    void segmentKeys_areDense_andExactlyEven() throws Exception {
        DataSource sharded = dataSource("t_ticket", "IDMINT_SEGMENT", "store: " + urls.get(0),
                "data-dir: " + dir.resolve("segments"));
        try (Connection c = sharded.getConnection();
             PreparedStatement insert = c.prepareStatement(
                     "insert into t_ticket (note) values (?), (?), (?), (?), (?)")) {
            for (int batch = 0; batch < 200; batch++) {
                for (int i = 1; i <= 5; i++) {
                    insert.setString(i, "ticket");
                }
                insert.executeUpdate();
            }
        }
        assertThat(counts("t_ticket", "ticket")).containsExactly(250, 250, 250, 250);
        assertThat(distinctIds("t_ticket")).isEqualTo(1_000);
    }

    @Test
    void intervalByTimeInsideTheId_monthRangeReachesOnlyItsTable() throws Exception {
        DataSource sharded = ShardedYaml.dataSource(urls, """
                rules:
                - !SHARDING
                  tables:
                    t_event:
                      actualDataNodes: ds_0.t_event_2026${['09','10','11','12']}
                      tableStrategy:
                        standard:
                          shardingColumn: id
                          shardingAlgorithmName: by_month
                  shardingAlgorithms:
                    by_month:
                      type: IDMINT_INTERVAL
                      props:
                        sharding-suffix-pattern: yyyyMM
                        datetime-interval-unit: MONTHS
                """);
        Layout layout = Layout.SNOWFLAKE;
        String[] months = {"2026-09", "2026-10", "2026-11", "2026-12"};
        try (Connection c = sharded.getConnection();
             PreparedStatement insert = c.prepareStatement(
                     "insert into t_event (id, note) values (?, ?)")) {
            for (String month : months) {
                long first = layout.range(Instant.parse(month + "-01T00:00:00Z"),
                        Instant.parse(month + "-02T00:00:00Z")).from();
                for (int i = 0; i < 10; i++) {
                    insert.setLong(1, first + ((long) i << 22) * 3_600_000L);
                    insert.setString(2, month);
                    insert.executeUpdate();
                }
            }
        }
        try (Connection c = DriverManager.getConnection(urls.get(0));
             Statement s = c.createStatement()) {
            for (String month : months) {
                try (ResultSet r = s.executeQuery("select count(*), min(note), max(note) from "
                        + "t_event_" + month.replace("-", ""))) {
                    r.next();
                    assertThat(r.getLong(1)).isEqualTo(10);
                    assertThat(r.getString(2)).isEqualTo(month).isEqualTo(r.getString(3));
                }
            }
            // Without September's and December's tables, a November range still works: it
            // never reaches them.
            s.execute("alter table t_event_202609 rename to gone_202609");
            s.execute("alter table t_event_202612 rename to gone_202612");
        }
        var november = layout.range(Instant.parse("2026-11-01T00:00:00Z"),
                Instant.parse("2026-12-01T00:00:00Z"));
        try (Connection c = sharded.getConnection();
             PreparedStatement q = c.prepareStatement(
                     "select count(*) from t_event where id >= ? and id < ?")) {
            q.setLong(1, november.from());
            q.setLong(2, november.to());
            try (ResultSet r = q.executeQuery()) {
                r.next();
                assertThat(r.getLong(1)).isEqualTo(10);
            }
        }
        try (Connection c = sharded.getConnection();
             PreparedStatement q = c.prepareStatement(
                     "select count(*) from t_event where id >= ? and id < ?")) {
            q.setLong(1, layout.range(Instant.parse("2026-09-01T00:00:00Z"),
                    Instant.parse("2026-09-02T00:00:00Z")).from());
            q.setLong(2, november.to());
            assertThatThrownBy(q::executeQuery).hasStackTraceContaining("t_event_202609");
        }
    }

    @Test
    void unknownProperty_stopsTheDataSource_namingIt() {
        assertThatThrownBy(() -> dataSource("t_order", "IDMINT", "registry: static:",
                "data-dir: " + dir.resolve("bad"), "worker-id: 3"))
                .hasStackTraceContaining("IDMINT: unknown property 'worker-id'");
        assertThatThrownBy(() -> dataSource("t_order", "IDMINT", "data-dir: " + dir))
                .hasStackTraceContaining("IDMINT: property 'registry' is required");
    }

    /** Inserts {@code rows} rows, one every 100 ms: each its own millisecond. */
    private static void slowly(DataSource sharded, String table, int rows) {
        try (Connection c = sharded.getConnection();
             PreparedStatement insert = c.prepareStatement("insert into " + table
                     + " (note) values ('slow')")) {
            long next = System.nanoTime();
            for (int i = 0; i < rows; i++) {
                insert.executeUpdate();
                next += TimeUnit.MILLISECONDS.toNanos(100);
                TimeUnit.NANOSECONDS.sleep(Math.max(0, next - System.nanoTime()));
            }
        } catch (SQLException | InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A data source sharding {@code table} across the 4 databases by IDMINT_MOD of its id. */
    private static DataSource dataSource(String table, String keyType, String... keyProps)
            throws Exception {
        StringBuilder props = new StringBuilder();
        for (String p : keyProps) {
            int colon = p.indexOf(": ");
            props.append("\n        ").append(p, 0, colon + 2).append('\'')
                    .append(p.substring(colon + 2)).append('\'');
        }
        return ShardedYaml.dataSource(urls, """
                rules:
                - !SHARDING
                  tables:
                    %s:
                      actualDataNodes: ds_${0..3}.%s
                      databaseStrategy:
                        standard:
                          shardingColumn: id
                          shardingAlgorithmName: by_id
                      keyGenerateStrategy:
                        column: id
                        keyGeneratorName: keys
                  shardingAlgorithms:
                    by_id:
                      type: IDMINT_MOD
                      props:
                        sharding-count: 4
                  keyGenerators:
                    keys:
                      type: %s
                      props:%s
                """.formatted(table, table, keyType, props));
    }

    /** The rows of {@code table} whose note is {@code note}, per database. */
    private static long[] counts(String table, String note) throws SQLException {
        long[] counts = new long[SHARDS];
        for (int i = 0; i < SHARDS; i++) {
            try (Connection c = DriverManager.getConnection(urls.get(i));
                 PreparedStatement q = c.prepareStatement("select count(*) from " + table
                         + " where note = ?")) {
                q.setString(1, note);
                try (ResultSet r = q.executeQuery()) {
                    r.next();
                    counts[i] = r.getLong(1);
                }
            }
        }
        return counts;
    }

    /** The distinct IDs of {@code table} across the 4 databases. */
    private static int distinctIds(String table) throws SQLException {
        Set<Long> ids = new HashSet<>();
        int rows = 0;
        for (String url : urls) {
            try (Connection c = DriverManager.getConnection(url);
                 Statement s = c.createStatement();
                 ResultSet r = s.executeQuery("select id from " + table)) {
                while (r.next()) {
                    ids.add(r.getLong(1));
                    rows++;
                }
            }
        }
        assertThat(ids).as("no key in two databases").hasSize(rows);
        return ids.size();
    }

    /** Prints a spread and its χ², which the docs quote. */
    private static void report(String what, long[] counts, double rate) {
        System.out.printf("ShardingSphereIT %s: %.0f inserts/s, rows per database %s, chi2 %.2f%n",
                what, rate, java.util.Arrays.toString(counts), chi2(counts));
    }

    private static long sum(long[] counts) {
        long s = 0;
        for (long c : counts) {
            s += c;
        }
        return s;
    }

    /** Pearson's χ² of {@code counts} against an even spread. */
    private static double chi2(long[] counts) {
        double expected = (double) sum(counts) / counts.length;
        double chi2 = 0;
        for (long c : counts) {
            chi2 += (c - expected) * (c - expected) / expected;
        }
        return chi2;
    }
}

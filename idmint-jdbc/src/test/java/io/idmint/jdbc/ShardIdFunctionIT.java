package io.idmint.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idmint.IdParts;
import io.idmint.Layout;
import io.idmint.jdbc.shardid.ShardIdFunction;
import io.idmint.jdbc.shardid.ShardIdFunctions;
import io.idmint.jdbc.shardid.ShardIdFunctions.Verification;
import io.idmint.testkit.IdOracle;
import io.idmint.testkit.TestTime;
import io.idmint.testkit.fixture.PostgresServer;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Instagram-style IDs minted by the installed PL/pgSQL function, on a real PostgreSQL. */
class ShardIdFunctionIT {

    private static final Duration WAIT = Duration.ofMillis(10);
    @RegisterExtension
    static final PostgresServer pg = PostgresServer.shared();

    static ShardIdFunction function(Layout layout, String schema, int shard) {
        return ShardIdFunction.of(layout, schema, shard, ShardIdFunction.defaultModulus(layout),
                WAIT);
    }

    static void install(String url, ShardIdFunction f) throws SQLException {
        try (Connection c = DriverManager.getConnection(url)) {
            ShardIdFunctions.install(c, f);
        }
    }

    /** Mints {@code n} IDs from one session, in autocommit: one transaction per ID. */
    static long[] mint(String url, String function, int n) throws SQLException {
        long[] ids = new long[n];
        try (Connection c = DriverManager.getConnection(url);
                PreparedStatement ps = c.prepareStatement("SELECT " + function + "()")) {
            for (int i = 0; i < n; i++) {
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    ids[i] = rs.getLong(1);
                }
            }
        }
        return ids;
    }

    /**
     * Four sessions per shard contending for its state row, 160,000 IDs in all: seconds of
     * sessions meeting in one millisecond of one shard (the wrap is its own test below).
     */
    @Test
    void sixteenSessionsOnFourShards_tenThousandEach_noDuplicate_decodeToShardAndTime()
            throws Exception {
        for (int shard = 0; shard < 4; shard++) {
            install(pg.url(), function(Layout.INSTAGRAM, "load_" + shard, shard));
        }
        long start = System.currentTimeMillis();
        ExecutorService pool = Executors.newFixedThreadPool(16);
        List<Future<long[]>> sessions = new ArrayList<>();
        for (int s = 0; s < 16; s++) {
            String fn = "load_" + (s % 4) + ".next_id";
            sessions.add(pool.submit(() -> mint(pg.url(), fn, 10_000)));
        }
        long[][] ids = new long[16][];
        for (int s = 0; s < 16; s++) {
            ids[s] = sessions.get(s).get();
        }
        long end = System.currentTimeMillis();
        pool.shutdown();
        IdOracle.assertUnique(ids);
        for (int s = 0; s < 16; s++) {
            IdOracle.assertStrictlyIncreasing(ids[s]);
            for (long id : ids[s]) {
                IdParts p = Layout.INSTAGRAM.decode(id);
                if (p.shardId() != s % 4 || p.timestampMillis() < start
                        || p.timestampMillis() > end) {
                    throw new AssertionError("ID " + id + " of session " + s + " decodes to "
                            + p + "; expected shard " + (s % 4) + " and a time in [" + start
                            + ", " + end + "]");
                }
            }
        }
    }

    /**
     * Other field orders and ticks: the shifts and the tick come from the layout. Each in a
     * database of its own: one layout per database.
     */
    @ParameterizedTest
    @ValueSource(strings = {"time=41,sequence=10,shard=12",
        "time=38,shard=13,sequence=12,tick=10ms"})
    void customLayouts_mintIncreasingIdsThatDecodeToTheirShardAndTime(String spec)
            throws Exception {
        Layout layout = Layout.parse(spec);
        String schema = "custom_" + layout.tickMillis();
        String url = pg.createDatabase(schema);
        int shard = 40 + (int) layout.tickMillis();
        install(url, ShardIdFunction.of(layout, schema, shard, 8, WAIT));
        long start = System.currentTimeMillis();

        long[] ids = mint(url, schema + ".next_id", 3_000);

        long end = System.currentTimeMillis();
        IdOracle.assertStrictlyIncreasing(ids);
        for (long id : ids) {
            IdParts p = layout.decode(id);
            assertThat(p.shardId()).isEqualTo(shard);
            assertThat(p.sequence()).isLessThan(8);
            assertThat(p.timestampMillis()).isBetween(start - layout.tickMillis(), end);
        }
    }

    @Test
    void sequenceWrappingWithinATick_waitsForTheNextTick_neverRepeats() throws Exception {
        ShardIdFunction f = ShardIdFunction.of(Layout.INSTAGRAM, "wrap", 9, 2, WAIT);
        install(pg.url(), f);

        long[] ids = mint(pg.url(), "wrap.next_id", 3_000);

        IdOracle.assertStrictlyIncreasing(ids);
        for (int i = 2; i < ids.length; i++) {
            assertThat(Layout.INSTAGRAM.decode(ids[i]).timestampMillis())
                    .as("at most 2 IDs (the modulus) per tick")
                    .isGreaterThan(Layout.INSTAGRAM.decode(ids[i - 2]).timestampMillis());
        }
    }

    /** What a clock stepped back, or a promoted replica whose clock is behind, looks like. */
    @Test
    void markAheadOfTheClock_raisesClockBehind_issuesNothing() throws Exception {
        ShardIdFunction f = function(Layout.INSTAGRAM, "behind", 10);
        install(pg.url(), f);
        long ahead = Layout.INSTAGRAM.compose(Layout.INSTAGRAM.tickOf(
                System.currentTimeMillis() + 60_000), 0, 0, 10, 0);
        try (Connection c = DriverManager.getConnection(pg.url());
                Statement s = c.createStatement()) {
            s.execute("SELECT setval('" + f.hwmName() + "', " + ahead + ")");
            assertThatThrownBy(() -> s.executeQuery("SELECT behind.next_id()"))
                    .isInstanceOfSatisfying(SQLException.class, e -> assertThat(e.getSQLState())
                            .isEqualTo(ShardIdFunction.CLOCK_BEHIND))
                    .hasMessageContaining("ms behind the last ID issued on shard 10");
            try (ResultSet rs = s.executeQuery("SELECT last_value FROM " + f.hwmName())) {
                rs.next();
                assertThat(rs.getLong(1)).isEqualTo(ahead);
            }
        }
    }

    @Test
    void rolledBackTransaction_keepsItsIdBurned() throws Exception {
        install(pg.url(), function(Layout.INSTAGRAM, "rolled", 11));
        long burned;
        try (Connection c = DriverManager.getConnection(pg.url());
                Statement s = c.createStatement()) {
            c.setAutoCommit(false);
            try (ResultSet rs = s.executeQuery("SELECT rolled.next_id()")) {
                rs.next();
                burned = rs.getLong(1);
            }
            c.rollback();
        }
        assertThat(java.util.Arrays.stream(mint(pg.url(), "rolled.next_id", 2000)).min()
                .getAsLong()).isGreaterThan(burned);
    }

    @Test
    void shardOrSchemaTakenOtherwise_isRefused_andNothingIsCreated() throws Exception {
        install(pg.url(), function(Layout.INSTAGRAM, "taken_a", 20));

        assertThatThrownBy(() -> install(pg.url(), function(Layout.INSTAGRAM, "taken_b", 20)))
                .hasMessageContaining("shard 20 is registered to schema taken_a");
        assertThatThrownBy(() -> install(pg.url(), function(Layout.parse(
                "instagram,epoch=2025-01-01T00:00:00Z"), "taken_a", 20)))
                .hasMessageContaining("this database's shards use layout "
                        + Layout.INSTAGRAM.spec());
        try (Connection c = DriverManager.getConnection(pg.url())) {
            assertThat(ShardIdFunctions.configuredShard(c, "taken_a")).hasValue(20);
            assertThat(ShardIdFunctions.configuredShard(c, "taken_b")).isEmpty();
            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(
                    "SELECT count(*) FROM pg_namespace WHERE nspname = 'taken_b'")) {
                rs.next();
                assertThat(rs.getInt(1)).as("no half-done install").isZero();
            }
        }
        install(pg.url(), function(Layout.INSTAGRAM, "taken_a", 20)); // again: idempotent
    }

    @Test
    void verify_acceptsTheInstalledFunction_andDecodesItsProbe() throws Exception {
        ShardIdFunction f = function(Layout.INSTAGRAM, "verified", 30);
        install(pg.url(), f);
        try (Connection c = DriverManager.getConnection(pg.url())) {
            Verification v = ShardIdFunctions.verify(c, f);
            assertThat(v.problems()).isEmpty();
            assertThat(v.probe().shardId()).isEqualTo(30);
        }
    }

    @Test
    void verify_detectsAMismatchingFunction_namingWhatDiffers() throws Exception {
        ShardIdFunction f = function(Layout.INSTAGRAM, "mismatch", 31);
        install(pg.url(), f);
        try (Connection c = DriverManager.getConnection(pg.url())) {
            ShardIdFunction otherEpoch = function(Layout.parse(
                    "instagram,epoch=2020-01-01T00:00:00Z"), "mismatch", 31);
            assertThat(ShardIdFunctions.verify(c, otherEpoch).problems())
                    .anyMatch(p -> p.contains("epoch_ms = 1767225600000, expected 1577836800000"))
                    .anyMatch(p -> p.contains("registered with layout"))
                    .anyMatch(p -> p.contains("probe ID") && p.contains("outside"));
            assertThat(ShardIdFunctions.verify(c, function(Layout.INSTAGRAM, "mismatch", 32))
                    .problems())
                    .anyMatch(p -> p.contains("registered as shard 31, expected 32"))
                    .anyMatch(p -> p.contains("shard_id = 31, expected 32"))
                    .anyMatch(p -> p.contains("decodes to shard 31, expected 32"));
            try (Statement s = c.createStatement()) { // a hand edit that keeps the constants
                s.execute("CREATE OR REPLACE FUNCTION mismatch.next_id() RETURNS bigint "
                        + "LANGUAGE plpgsql VOLATILE AS $x$" + f.body().replace(
                                "EXIT WHEN id > hwm;", "EXIT;") + "$x$");
            }
            assertThat(ShardIdFunctions.verify(c, f).problems()).singleElement().asString()
                    .contains("differs from the generated text at line")
                    .contains("'EXIT;', expected 'EXIT WHEN id > hwm;'");
            try (Statement s = c.createStatement()) {
                s.execute("DROP FUNCTION mismatch.next_id()");
            }
            assertThat(ShardIdFunctions.verify(c, f).problems())
                    .contains("no function mismatch.next_id() is installed");
        }
    }

    /**
     * Regression: shards of two layouts in one database mint the same ID ({@code instagram}
     * shard 0 sequence 41 is {@code time=41,sequence=10,shard=12} shard 41 sequence 0), so the
     * install refuses a second layout, naming the first.
     */
    @Test
    void anotherLayoutInTheDatabase_isRefusedNamingTheRegisteredOne_andNothingIsCreated()
            throws Exception {
        Layout other = Layout.parse("time=41,sequence=10,shard=12");
        long tick = Layout.INSTAGRAM.tickOf(System.currentTimeMillis());
        assertThat(other.compose(tick, 0, 0, 41, 0))
                .as("the collision the rule prevents")
                .isEqualTo(Layout.INSTAGRAM.compose(tick, 0, 0, 0, 41));
        String url = pg.createDatabase("mixed");
        install(url, function(Layout.INSTAGRAM, "ig_0", 0));

        assertThatThrownBy(() -> install(url, function(other, "other_41", 41)))
                .isInstanceOfSatisfying(SQLException.class, e -> assertThat(e.getSQLState())
                        .isEqualTo(ShardIdFunction.NOT_REGISTERED))
                .hasMessageContaining("cannot register shard 41 for schema other_41 with layout "
                        + other.spec() + ": this database's shards use layout "
                        + Layout.INSTAGRAM.spec() + " (shard 0 in schema ig_0)")
                .hasMessageContaining("install this layout in another database");
        assertThatThrownBy(() -> install(url, function(Layout.parse(
                "instagram,tick=2ms"), "ig_1", 1)))
                .hasMessageContaining("this database's shards use layout "
                        + Layout.INSTAGRAM.spec());
        assertRegistry(url, "0 ig_0 " + Layout.INSTAGRAM.spec());
        try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT count(*) FROM pg_namespace "
                        + "WHERE nspname IN ('other_41', 'ig_1')")) {
            rs.next();
            assertThat(rs.getInt(1)).as("no half-done install").isZero();
        }
        install(url, function(Layout.INSTAGRAM, "ig_1", 1)); // the registered layout: welcome
    }

    /** An install of another layout waits for one in progress, then sees its layout. */
    @Test
    void concurrentInstallOfAnotherLayout_waitsForTheFirst_thenIsRefused() throws Exception {
        String url = pg.createDatabase("raced");
        install(url, function(Layout.INSTAGRAM, "seed", 0));
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try (Connection first = DriverManager.getConnection(url);
                Connection admin = DriverManager.getConnection(url);
                Statement s = first.createStatement()) {
            s.execute("DELETE FROM idmint.shard"); // an empty registry: no layout yet
            first.setAutoCommit(false);
            for (String sql : function(Layout.INSTAGRAM, "first", 1).statements()) {
                s.execute(sql);
            }
            Future<?> second = pool.submit(() -> {
                install(url, function(Layout.parse("time=41,sequence=10,shard=12"),
                        "second", 41));
                return null;
            });
            awaitInstallWaitingOnLock(admin);
            first.commit();

            assertThatThrownBy(second::get).hasRootCauseInstanceOf(SQLException.class)
                    .rootCause().hasMessageContaining("this database's shards use layout "
                            + Layout.INSTAGRAM.spec() + " (shard 1 in schema first)");
        } finally {
            pool.shutdown();
        }
        assertRegistry(url, "1 first " + Layout.INSTAGRAM.spec());
    }

    /**
     * Two first installs into an empty database: the second waits for the first, then finds
     * its schema and registry and registers beside it (without the install's lock it failed on
     * a duplicate key of the catalog as the first committed).
     */
    @Test
    void concurrentFirstInstalls_onAnEmptyDatabase_bothRegister() throws Exception {
        String url = pg.createDatabase("first_race");
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try (Connection first = DriverManager.getConnection(url);
                Connection admin = DriverManager.getConnection(url);
                Statement s = first.createStatement()) {
            first.setAutoCommit(false);
            for (String sql : function(Layout.INSTAGRAM, "first", 1).statements()) {
                s.execute(sql);
            }
            Future<?> second = pool.submit(() -> {
                install(url, function(Layout.INSTAGRAM, "second", 2));
                return null;
            });
            awaitInstallWaitingOnLock(admin);
            first.commit();

            second.get(30, TimeUnit.SECONDS);
        } finally {
            pool.shutdown();
        }
        assertRegistry(url, "1 first " + Layout.INSTAGRAM.spec(),
                "2 second " + Layout.INSTAGRAM.spec());
    }

    /** A database installed before the one-layout rule may hold two: verify says so. */
    @Test
    void verify_reportsARegistryOfTwoLayouts() throws Exception {
        String url = pg.createDatabase("legacy");
        ShardIdFunction f = function(Layout.INSTAGRAM, "legacy_0", 0);
        install(url, f);
        Layout other = Layout.parse("time=41,sequence=10,shard=12");
        try (Connection c = DriverManager.getConnection(url)) {
            try (Statement s = c.createStatement()) { // what an install before the rule left
                s.execute("INSERT INTO idmint.shard (shard, schema_name, layout) "
                        + "VALUES (41, 'legacy_41', '" + other.spec() + "')");
            }
            assertThat(ShardIdFunctions.verify(c, f).problems()).singleElement().asString()
                    .contains("the shard registry idmint.shard holds 2 layouts ("
                            + Layout.INSTAGRAM.spec() + ": shards 0 (legacy_0); " + other.spec()
                            + ": shards 41 (legacy_41))")
                    .contains("move the others' functions to another database");
        }
    }

    private static void assertRegistry(String url, String... rows) throws SQLException {
        List<String> found = new ArrayList<>();
        try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT shard || ' ' || schema_name || ' ' || "
                        + "layout FROM idmint.shard ORDER BY shard")) {
            while (rs.next()) {
                found.add(rs.getString(1));
            }
        }
        assertThat(found).containsExactly(rows);
    }

    private static void awaitInstallWaitingOnLock(Connection admin) throws Exception {
        long deadline = TestTime.deadline(Duration.ofSeconds(15));
        while (System.nanoTime() < deadline) {
            try (Statement s = admin.createStatement(); ResultSet rs = s.executeQuery(
                    "SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
                            + "AND datname = current_database()")) {
                if (rs.next()) {
                    return;
                }
            }
            Thread.sleep(20);
        }
        throw new AssertionError("the second install never waited on the first's lock");
    }
}

package io.idmint.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idmint.segment.RangeStores;
import io.idmint.segment.SegmentGenerator;
import io.idmint.segment.Segments;
import io.idmint.spi.Range;
import io.idmint.spi.RangeStore;
import io.idmint.spi.RegistryException;
import io.idmint.spi.RegistryException.Kind;
import io.idmint.spi.UnknownTagException;
import io.idmint.testkit.RangeStoreContract;
import io.idmint.testkit.TestTime;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The range store contract on an existing Leaf table ({@code idmint.table=leaf_alloc}), plus
 * Leaf's semantics, bad rows and Leaf's tag names. A subclass per database names its URL; the
 * table is created here as Leaf's {@code scripts/leaf_alloc.sql} creates it, never by idmint.
 */
abstract class LeafAllocContract extends RangeStoreContract {

    /** The plain database URL, without idmint options. */
    abstract String url();

    /** The segment store URL: {@link #url()} with {@code idmint.table=leaf_alloc}. */
    String storeUrl() {
        return url() + (url().startsWith("jdbc:h2:") ? ";" : url().contains("?") ? "&" : "?")
                + "idmint.table=leaf_alloc";
    }

    /** Leaf's table in this database's dialect. */
    String leafTable() {
        return "CREATE TABLE IF NOT EXISTS leaf_alloc (biz_tag VARCHAR(128) NOT NULL DEFAULT '' "
                + "PRIMARY KEY, max_id BIGINT NOT NULL DEFAULT 1, step INT NOT NULL, "
                + "description VARCHAR(256) DEFAULT NULL, update_time TIMESTAMP NOT NULL "
                + "DEFAULT CURRENT_TIMESTAMP)";
    }

    @BeforeEach
    void createLeafTable() throws SQLException {
        sql(leafTable());
    }

    @Override
    protected String definitionsRefusal() {
        return "serials are not kept in Leaf's leaf_alloc table";
    }

    @Override
    protected RangeStore newClient() {
        return RangeStores.open(storeUrl(), null);
    }

    void sql(String statement, Object... args) throws SQLException {
        try (Connection c = DriverManager.getConnection(url());
                PreparedStatement ps = c.prepareStatement(statement)) {
            for (int i = 0; i < args.length; i++) {
                ps.setObject(i + 1, args[i]);
            }
            ps.execute();
        }
    }

    /** The row's max_id and step, as Leaf reads them. */
    long[] row(String tag) throws SQLException {
        try (Connection c = DriverManager.getConnection(url());
                PreparedStatement ps = c.prepareStatement(
                        "SELECT max_id, step FROM leaf_alloc WHERE biz_tag = ?")) {
            ps.setString(1, tag);
            try (ResultSet rs = ps.executeQuery()) {
                assertThat(rs.next()).as("row %s", tag).isTrue();
                return new long[] {rs.getLong(1), rs.getLong(2)};
            }
        }
    }

    void leafRow(String tag, long maxId, long step) throws SQLException {
        sql("INSERT INTO leaf_alloc (biz_tag, max_id, step, description) VALUES (?, ?, ?, 'x')",
                tag, maxId, step);
    }

    @Test
    void allocate_isLeafsUpdate_theRangeEndsAtTheNewMaxId_andStepIsNeverWritten()
            throws Exception {
        leafRow(tag, 1, 1000);
        RangeStore s = connect();
        // Leaf serves [max_id - step, max_id) of the new max_id: a fresh row's first ID is 1.
        assertThat(s.allocate(tag, RangeStore.TAG_STEP)).isEqualTo(new Range(1, 1001));
        assertThat(row(tag)).containsExactly(1001, 1000);
        assertThat(s.allocate(tag, 300)).isEqualTo(new Range(1001, 1301));
        assertThat(row(tag)).containsExactly(1301, 1000);
    }

    @Test
    void leafTagNames_areServed() throws Exception {
        String[] tags = {"order:2024", tag + "@eu+1", "x".repeat(100) + tag + "y".repeat(16)};
        RangeStore s = connect();
        for (String t : tags) {
            leafRow(t, 50, 10);
            assertThat(s.allocate(t, RangeStore.TAG_STEP)).isEqualTo(new Range(50, 60));
        }
        assertThat(s.tags()).extracting(i -> i.tag()).contains(tags);
        assertThatThrownBy(() -> s.allocate("order/2024", 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'order/2024' must be 1 to 128 printable ASCII");
    }

    @Test
    void badRows_areRefusedNamingTheRow_andNothingIsTaken() throws Exception {
        RangeStore s = connect();
        Object[][] bad = {
            {"step0", 10L, 0L, "has step 0, not >= 1"},
            {"stepneg", 10L, -5L, "has step -5, not >= 1"},
            {"maxneg", -1L, 10L, "has max_id -1, below 0"},
            {"near", Long.MAX_VALUE - 5, 10L, "has max_id 9223372036854775802: plus 10 it would "
                    + "overflow a BIGINT"},
        };
        for (Object[] b : bad) {
            String t = tag + b[0];
            leafRow(t, (Long) b[1], (Long) b[2]);
            for (long size : new long[] {RangeStore.TAG_STEP, 10}) {
                assertThatThrownBy(() -> s.allocate(t, size)).as(t)
                        .isInstanceOf(RegistryException.class)
                        .hasMessageContaining("row biz_tag='" + t + "' " + b[3])
                        .hasMessageContaining("table leaf_alloc in ")
                        .extracting(e -> ((RegistryException) e).kind()).isEqualTo(Kind.CORRUPT);
            }
            assertThat(row(t)).as(t).containsExactly((Long) b[1], (Long) b[2]);
        }
    }

    @Test
    void unknownTag_namesTheTable() {
        assertThatThrownBy(() -> connect().allocate(tag, RangeStore.TAG_STEP))
                .isInstanceOf(UnknownTagException.class)
                .hasMessageContaining("segment tag '" + tag + "' is not a biz_tag of table "
                        + "leaf_alloc in ");
    }

    @Test
    void tags_compareExactly_aRowTheCollationMatchesInAnotherCase_isNotTheTag()
            throws Exception {
        leafRow(tag, 1, 1000);
        String upper = tag.toUpperCase(Locale.ROOT);
        RangeStore s = connect();
        for (long size : new long[] {RangeStore.TAG_STEP, 5}) {
            assertThatThrownBy(() -> s.allocate(upper, size))
                    .isInstanceOf(UnknownTagException.class)
                    .hasMessageContaining("segment tag '" + upper + "' is not a biz_tag of "
                            + "table leaf_alloc in ");
        }
        // nothing was taken from the row: Leaf's own cache compares exactly too
        assertThat(row(tag)).containsExactly(1, 1000);
        assertThat(s.allocate(tag, RangeStore.TAG_STEP)).isEqualTo(new Range(1, 1001));
    }

    @Test
    void autoCreate_insertsALeafShapedRow() throws Exception {
        try (SegmentGenerator g = Segments.newBuilder().store(connect()).autoCreate(true)
                .step(500).build()) {
            assertThat(g.next(tag)).isEqualTo(1);
        }
        assertThat(row(tag)).containsExactly(501, 500);
        try (Connection c = DriverManager.getConnection(url());
                Statement st = c.createStatement();
                ResultSet rs = st.executeQuery("SELECT description, update_time FROM leaf_alloc "
                        + "WHERE biz_tag = '" + tag + "'")) {
            assertThat(rs.next()).isTrue();
            assertThat(rs.getString(1)).isEqualTo(LeafAllocStore.CREATED);
            assertThat(rs.getTimestamp(2)).isNotNull();
        }
        assertThatThrownBy(() -> connect().create(tag + "big", 1, Integer.MAX_VALUE + 1L))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("segment step 2147483648 does not fit leaf_alloc.step, an int (at "
                        + "most 2147483647)");
    }

    @Test
    void namespaceOption_isRefused_andInitSchemaNeverCreatesLeafsTable() {
        String both = storeUrl() + (url().startsWith("jdbc:h2:") ? ";" : "&")
                + "idmint.namespace=a";
        assertThatThrownBy(() -> RangeStores.open(both, null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("idmint.namespace does not apply to idmint.table=leaf_alloc");
        assertThatThrownBy(() -> JdbcRangeStores.initSchema(storeUrl(), null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("never creates it");
        assertThatThrownBy(() -> RangeStores.open(url() + (url().startsWith("jdbc:h2:") ? ";"
                : url().contains("?") ? "&" : "?") + "idmint.table=leaf", null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("idmint.table 'leaf' must be idmint_segment");
    }

    /**
     * A Leaf server that dies inside its allocation (its UPDATE run, no commit, the connection
     * cut) takes nothing: the database rolls it back, and an idmint allocation queued behind
     * its row lock gets the values it would have had. For server databases (an in-process H2
     * session outlives its aborted connection).
     *
     * @param lockWaits SQL counting the statements that wait for a row lock, asked on a
     *     connection of its own in autocommit: the Leaf connection is cut only once idmint's
     *     allocation waits behind it (cut earlier, the test would prove nothing)
     */
    void assertLeafDyingMidTransactionTakesNothing(String lockWaits) throws Exception {
        leafRow(tag, 1, 100);
        // A statement timeout far above the default 2 s: the allocation must outwait the poll
        // that sees it blocked and the abort, however slow the machine.
        RangeStore s = RangeStores.open(storeUrl() + "&idmint.timeout=60s", null);
        java.util.concurrent.ExecutorService pool =
                java.util.concurrent.Executors.newSingleThreadExecutor();
        try (Connection leaf = DriverManager.getConnection(url())) {
            leaf.setAutoCommit(false);
            try (PreparedStatement ps = leaf.prepareStatement(
                    "UPDATE leaf_alloc SET max_id = max_id + step WHERE biz_tag = ?")) {
                ps.setString(1, tag);
                assertThat(ps.executeUpdate()).isEqualTo(1);
            }
            java.util.concurrent.Future<Range> queued =
                    pool.submit(() -> s.allocate(tag, RangeStore.TAG_STEP));
            awaitLockWait(lockWaits, queued);
            leaf.abort(Runnable::run);
            assertThat(queued.get(30, java.util.concurrent.TimeUnit.SECONDS))
                    .isEqualTo(new Range(1, 101));
        } finally {
            pool.shutdownNow();
            s.close();
        }
        assertThat(row(tag)).containsExactly(101, 100);
    }

    /** Polls {@code lockWaits} until one statement waits for a row lock. */
    private void awaitLockWait(String lockWaits, java.util.concurrent.Future<?> queued)
            throws Exception {
        long deadline = TestTime.deadline(Duration.ofSeconds(30));
        try (Connection watcher = DriverManager.getConnection(url())) {
            watcher.setAutoCommit(true);
            while (System.nanoTime() < deadline) {
                if (queued.isDone()) {
                    throw new AssertionError("idmint's allocation did not wait for Leaf's row "
                            + "lock: " + outcome(queued));
                }
                try (Statement st = watcher.createStatement();
                        ResultSet rs = st.executeQuery(lockWaits)) {
                    if (rs.next() && rs.getLong(1) > 0) {
                        return;
                    }
                }
                Thread.sleep(10);
            }
        }
        throw new AssertionError("idmint's allocation never waited for Leaf's row lock");
    }

    private static String outcome(java.util.concurrent.Future<?> done) {
        try {
            return "it returned " + done.get();
        } catch (Exception e) {
            return "it failed: " + e.getCause();
        }
    }

    /**
     * The rolling migration: two Leaf servers (re-enacted) and two idmint generators serve one
     * tag at once, three threads each; one Leaf server and one idmint generator are killed
     * half-way and replaced. No value is issued twice, and every value is accounted for: the
     * segments loaded by every side tile the values taken from the row without gap or overlap,
     * and each ID lies in a segment of the side that issued it.
     */
    @Test
    void rollingMigration_leafAndIdmintServeOneTagAtOnce_noOverlap() throws Exception {
        leafRow(tag, 1, 100);
        MigrationRun run = new MigrationRun(tag, url(), this::newClient, perThread());
        MigrationRun.Result r = run.run();
        System.out.printf("%s rolling migration: %,d IDs from Leaf, %,d from idmint, %,d leaf "
                + "segments, %,d idmint ranges, %,d hand-overs between the sides, %,d values "
                + "taken, %,d left unissued (buffers of killed and stopped nodes)%n",
                getClass().getSimpleName(), r.leafIds(), r.idmintIds(), r.leafRanges(),
                r.idmintRanges(), r.alternations(), r.taken(),
                r.taken() - r.leafIds() - r.idmintIds());
        assertThat(r.alternations()).as("the sides took turns on the row").isGreaterThan(2);
        assertThat(r.leafIds()).isEqualTo(6L * perThread());
        assertThat(r.idmintIds()).isEqualTo(6L * perThread());
        assertThat(row(tag)[0]).isEqualTo(1 + r.taken());
    }

    /** IDs each thread draws in the rolling migration. */
    int perThread() {
        return 20_000;
    }

    /** Sorts ranges by start and fails on any two that share a value, or a gap between. */
    static void assertTiled(List<Range> ranges, long from, long to) {
        List<Range> sorted = new ArrayList<>(ranges);
        sorted.sort(Comparator.comparingLong(Range::start));
        long at = from;
        for (Range r : sorted) {
            assertThat(r.start()).as("range %s after %d", r, at).isEqualTo(at);
            at = r.end();
        }
        assertThat(at).isEqualTo(to);
    }
}

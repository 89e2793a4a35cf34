package io.idmint.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import io.idmint.segment.RangeStores;
import io.idmint.spi.Range;
import io.idmint.spi.RangeStore;
import io.idmint.spi.TagInfo;
import io.idmint.testkit.LocalProcesses;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The node's default segment store, {@link JdbcRangeStores#DEFAULT_URL}: an H2 file under the data
 * directory, kept across restarts and crashes, and locked by the one process that has it open.
 */
class H2FileRangeStoreIT {

    /** For child JVMs, which start cold on a busy machine: more time for the first connect. */
    private static final String PATIENT = JdbcRangeStores.DEFAULT_URL + ";idmint.timeout=10s";

    private Path dataDir;

    /** Loads H2 and the pool once, so the tests' 2 s bound covers opening a file, not that. */
    @BeforeAll
    static void warmUp() throws Exception {
        try (RangeStore s = JdbcRangeStores.open(
                "jdbc:h2:mem:warm-up;DB_CLOSE_DELAY=-1;idmint.timeout=30s", null)) {
            s.tags();
        }
    }

    @BeforeEach
    void createDataDir() throws Exception {
        dataDir = Files.createTempDirectory("idmint-data");
    }

    @AfterEach
    void deleteDataDir() throws Exception {
        LocalProcesses.deleteTree(dataDir);
    }

    @Test
    void defaultUrl_isAFileUnderTheDataDir_keptAcrossRestarts() throws Exception {
        try (RangeStore s = RangeStores.open(JdbcRangeStores.DEFAULT_URL, dataDir)) {
            s.create("order", 1, 1000);
            assertThat(s.allocate("order", RangeStore.TAG_STEP)).isEqualTo(new Range(1, 1001));
        }
        assertThat(dataDir.resolve("segments.mv.db")).isRegularFile();
        try (RangeStore s = RangeStores.open(JdbcRangeStores.DEFAULT_URL, dataDir)) {
            assertThat(s.tags()).containsExactly(new TagInfo("order", 1001, 1000));
            assertThat(s.allocate("order", 10)).isEqualTo(new Range(1001, 1011));
        }
    }

    @Test
    void allocate_processKilledRightAfter_keepsEveryAcknowledgedRange() throws Exception {
        try (RangeStore s = RangeStores.open(JdbcRangeStores.DEFAULT_URL, dataDir)) {
            s.create("order", 1, 10);
        }
        long top = 0;
        for (int run = 0; run < 3; run++) {
            // The child dies without closing the database, right after its last commit.
            try (RangeClient child = RangeClient.start(PATIENT, dataDir, "order", 50, 7, true)) {
                child.go();
                List<Range> ranges = child.ranges();
                assertThat(child.errors()).isEmpty();
                assertThat(ranges).hasSize(50);
                assertThat(ranges.get(0).start()).as("run %d started below an earlier range", run)
                        .isGreaterThanOrEqualTo(top);
                top = ranges.get(ranges.size() - 1).end();
            }
        }
        try (RangeStore s = RangeStores.open(JdbcRangeStores.DEFAULT_URL, dataDir)) {
            assertThat(s.allocate("order", 1).start()).isEqualTo(top);
        }
    }

    @Test
    void open_fileHeldByAnotherProcess_isUnavailableThere() throws Exception {
        try (RangeStore s = RangeStores.open(JdbcRangeStores.DEFAULT_URL, dataDir)) {
            s.create("order", 1, 10);
            Range mine = s.allocate("order", 5);
            try (RangeClient other = RangeClient.start(JdbcRangeStores.DEFAULT_URL, dataDir,
                    "order", 2, 5, false)) {
                other.go();
                assertThat(other.ranges()).isEmpty();
                assertThat(other.errors()).hasSize(3).allSatisfy(e -> assertThat(e)
                        .startsWith("error UNAVAILABLE").contains("segments.mv.db")
                        .contains("already in use"));
            }
            assertThat(s.allocate("order", 5).start()).isEqualTo(mine.end());
        }
    }
}

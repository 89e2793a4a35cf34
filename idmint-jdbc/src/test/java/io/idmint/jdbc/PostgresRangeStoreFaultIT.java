package io.idmint.jdbc;

import static io.idmint.jdbc.JdbcRangeStoreContract.assertDisjoint;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idmint.spi.Range;
import io.idmint.spi.RangeStore;
import io.idmint.spi.RegistryException;
import io.idmint.spi.RegistryException.Kind;
import io.idmint.testkit.LocalProcesses;
import io.idmint.testkit.TestTime;
import io.idmint.testkit.fixture.PostgresServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The segment store on a real PostgreSQL server with real concurrency and real faults: eight
 * client processes racing on one tag, a connection killed inside an allocation, and the server
 * stopped under load.
 */
class PostgresRangeStoreFaultIT {

    /** Stopped and started again by the tests. */
    @RegisterExtension
    static final PostgresServer pg = PostgresServer.dedicated();

    private final String tag = "f" + UUID.randomUUID().toString().substring(0, 8);
    private final List<AutoCloseable> toClose = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (int i = toClose.size() - 1; i >= 0; i--) {
            toClose.get(i).close();
        }
    }

    private <T extends AutoCloseable> T closing(T c) {
        toClose.add(c);
        return c;
    }

    private RangeStore client(String timeout) {
        return closing(JdbcRangeStores.open(pg.url() + "&idmint.timeout=" + timeout, null));
    }

    @Test
    void allocate_eightProcesses_rangesNeverOverlap() throws Exception {
        client("2s").create(tag, 1, 100);
        Path dir = Files.createTempDirectory("idmint-seg");
        int processes = 8;
        int per = 150;
        List<RangeClient> children = new ArrayList<>();
        for (int i = 0; i < processes; i++) {
            children.add(closing(RangeClient.start(pg.url() + "&idmint.timeout=10s", dir, tag,
                    per, 1 + i, false)));
        }
        // All opened and waiting: let them race.
        for (RangeClient c : children) {
            c.go();
        }
        List<Range> all = new ArrayList<>();
        for (RangeClient c : children) {
            List<Range> mine = c.ranges();
            assertThat(c.errors()).isEmpty();
            assertThat(mine).hasSize(per);
            for (int i = 1; i < mine.size(); i++) {
                assertThat(mine.get(i).start()).isGreaterThanOrEqualTo(mine.get(i - 1).end());
            }
            all.addAll(mine);
        }
        List<Range> sorted = assertDisjoint(all);
        long total = all.stream().mapToLong(Range::size).sum();
        // No call failed, so nothing was lost either: the ranges tile [1, 1 + total).
        assertThat(sorted.get(0).start()).isEqualTo(1);
        assertThat(sorted.get(sorted.size() - 1).end()).isEqualTo(1 + total);
        assertThat(client("2s").allocate(tag, 1).start()).isEqualTo(1 + total);
        LocalProcesses.deleteTree(dir);
    }

    @Test
    void allocate_connectionKilledInsideTheTransaction_isUnavailable_andLaterRangesAreAbove()
            throws Exception {
        // A long timeout: the allocation below must end by the kill, not by a time-out.
        RangeStore store = client("20s");
        store.create(tag, 1, 10);
        long top = 0;
        for (int i = 0; i < 20; i++) {
            top = store.allocate(tag, 10).end();
        }
        try (Connection admin = DriverManager.getConnection(pg.url())) {
            admin.setAutoCommit(false);
            // Hold the row, so the store's UPDATE waits inside its transaction.
            try (PreparedStatement ps = admin.prepareStatement("SELECT next_id FROM "
                    + "idmint_segment WHERE namespace = 'default' AND tag = ? FOR UPDATE")) {
                ps.setString(1, tag);
                ps.executeQuery().close();
            }
            CompletableFuture<Range> blocked = CompletableFuture.supplyAsync(() -> {
                try {
                    return store.allocate(tag, 10);
                } catch (RegistryException e) {
                    throw new java.util.concurrent.CompletionException(e);
                }
            });
            int pid = awaitBackendWaitingOnLock();
            try (PreparedStatement ps = admin.prepareStatement(
                    "SELECT pg_terminate_backend(?)")) {
                ps.setInt(1, pid);
                ps.executeQuery().close();
            }
            assertThatThrownBy(() -> blocked.get(30, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class)
                    .cause().isInstanceOf(RegistryException.class)
                    .hasMessageContaining("allocate 10 of tag '" + tag + "'")
                    .extracting(e -> ((RegistryException) e).kind()).isEqualTo(Kind.UNAVAILABLE);
            admin.rollback();
        }
        // The pool drops the dead connection; the next allocation is above all earlier ones.
        Range after = store.allocate(tag, 10);
        assertThat(after.start()).isGreaterThanOrEqualTo(top);
        assertThat(client("2s").allocate(tag, 10).start()).isGreaterThanOrEqualTo(after.end());
    }

    /**
     * The pid of the backend whose UPDATE of idmint_segment waits for a row lock. Asked on a
     * connection of its own in autocommit: PostgreSQL keeps one snapshot of pg_stat_activity
     * per transaction, so polling inside the lock holder's transaction would see the first
     * answer forever (regression: that made this test fail whenever its first poll came before
     * the UPDATE had begun to wait).
     */
    private static int awaitBackendWaitingOnLock() throws Exception {
        long deadline = TestTime.deadline(Duration.ofSeconds(15));
        try (Connection watcher = DriverManager.getConnection(pg.url())) {
            watcher.setAutoCommit(true);
            while (System.nanoTime() < deadline) {
                try (PreparedStatement ps = watcher.prepareStatement("SELECT pid FROM "
                        + "pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE "
                        + "'UPDATE idmint_segment%'");
                        ResultSet rs = ps.executeQuery()) {
                    if (rs.next()) {
                        return rs.getInt(1);
                    }
                }
                Thread.sleep(20);
            }
        }
        throw new AssertionError("no allocation waited on the held row");
    }

    @Test
    void allocate_serverStoppedUnderLoad_failsUnavailable_andLaterRangesAreAbove()
            throws Exception {
        client("1s").create(tag, 1, 10);
        int threads = 4;
        List<Range> taken = Collections.synchronizedList(new ArrayList<>());
        List<Throwable> failures = Collections.synchronizedList(new ArrayList<>());
        AtomicBoolean stop = new AtomicBoolean();
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            RangeStore store = client("1s");
            Thread w = new Thread(() -> {
                while (!stop.get()) {
                    try {
                        taken.add(store.allocate(tag, 5));
                    } catch (RegistryException | RuntimeException e) {
                        failures.add(e);
                        sleep(20);
                    }
                }
            }, "allocator-" + t);
            w.setDaemon(true);
            w.start();
            workers.add(w);
        }
        try {
            awaitSize(taken, 200, "ranges before the stop");
            pg.stop();
            long beforeStop;
            synchronized (taken) {
                beforeStop = taken.stream().mapToLong(Range::end).max().orElseThrow();
            }
            awaitSize(failures, threads * 3, "failures while the server is down");
            int takenWhileDown = taken.size();
            pg.start();
            awaitSize(taken, takenWhileDown + 200, "ranges after the restart");
            stop.set(true);
            for (Thread w : workers) {
                w.join(TimeUnit.SECONDS.toMillis(30));
            }
            assertThat(failures).allSatisfy(e -> assertThat(e)
                    .isInstanceOf(RegistryException.class)
                    .extracting(x -> ((RegistryException) x).kind()).isEqualTo(Kind.UNAVAILABLE));
            List<Range> sorted = assertDisjoint(taken);
            long top = sorted.get(sorted.size() - 1).end();
            assertThat(top).isGreaterThan(beforeStop);
            assertThat(client("2s").allocate(tag, 1).start()).isGreaterThanOrEqualTo(top);
        } finally {
            stop.set(true);
        }
    }

    private static void awaitSize(List<?> list, int n, String what) throws InterruptedException {
        long deadline = TestTime.deadline(Duration.ofSeconds(40));
        while (list.size() < n) {
            assertThat(System.nanoTime()).as("only %d %s", list.size(), what)
                    .isLessThan(deadline);
            Thread.sleep(10);
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}

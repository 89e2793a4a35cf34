package io.idmint.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import io.idmint.Layout;
import io.idmint.jdbc.shardid.ShardIdFunction;
import io.idmint.testkit.IdOracle;
import io.idmint.testkit.fixture.PostgresServer;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The database host's clock steps back while sessions mint: the function raises
 * {@code IDM01} instead of issuing until the clock is past the shard's high-water mark again,
 * and no ID is ever issued twice. The server runs under libfaketime, its offset read from a file
 * the test rewrites.
 */
class ShardIdFunctionClockIT {

    private static final int SESSIONS = 8;

    @RegisterExtension
    static final PostgresServer pg = PostgresServer.dedicated().steppableClock();

    @Test
    void clockSteppedBackWhileSessionsMint_raisesInsteadOfIssuing_neverADuplicate()
            throws Exception {
        for (int shard = 0; shard < 2; shard++) {
            ShardIdFunctionIT.install(pg.url(), ShardIdFunctionIT.function(Layout.INSTAGRAM,
                    "stepped_" + shard, shard));
        }
        CountDownLatch warm = new CountDownLatch(2_000);
        CountDownLatch refused = new CountDownLatch(1);
        CountDownLatch recovered = new CountDownLatch(2_000);
        AtomicLong refusals = new AtomicLong();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<List<Long>> ids = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        for (int s = 0; s < SESSIONS; s++) {
            List<Long> mine = new ArrayList<>();
            ids.add(mine);
            String fn = "stepped_" + (s % 2) + ".next_id";
            Thread t = new Thread(() -> {
                try (Connection c = DriverManager.getConnection(pg.url());
                        PreparedStatement ps = c.prepareStatement("SELECT " + fn + "()")) {
                    boolean wasRefused = false;
                    while (!stop.get()) {
                        try (ResultSet rs = ps.executeQuery()) {
                            rs.next();
                            mine.add(rs.getLong(1));
                            warm.countDown();
                            if (wasRefused) { // this session's clock passed the mark
                                recovered.countDown();
                            }
                        } catch (SQLException e) {
                            if (!ShardIdFunction.CLOCK_BEHIND.equals(e.getSQLState())) {
                                throw e;
                            }
                            refusals.incrementAndGet();
                            refused.countDown();
                            wasRefused = true;
                        }
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                    warm.countDown();
                    refused.countDown();
                    while (recovered.getCount() > 0) {
                        recovered.countDown();
                    }
                }
            });
            t.start();
            threads.add(t);
        }
        try {
            assertThat(warm.await(60, TimeUnit.SECONDS)).as("minting started").isTrue();
            pg.setClock("-3"); // the database host's clock: 3 s back
            assertThat(refused.await(60, TimeUnit.SECONDS)).as("the function raised")
                    .isTrue();
            long offset = serverMillis(pg.url()) - System.currentTimeMillis();
            assertThat(offset).as("server clock offset after the step")
                    .isBetween(-3_600L, -2_400L);
            assertThat(recovered.await(60, TimeUnit.SECONDS))
                    .as("minting resumed once the clock passed the mark").isTrue();
        } finally {
            stop.set(true);
            for (Thread t : threads) {
                t.join();
            }
        }
        assertThat(failure.get()).as("only IDM01 refusals, no other error").isNull();
        assertThat(refusals.get()).isPositive();
        long[][] all = new long[SESSIONS][];
        for (int s = 0; s < SESSIONS; s++) {
            all[s] = ids.get(s).stream().mapToLong(Long::longValue).toArray();
            IdOracle.assertStrictlyIncreasing(all[s]);
            for (long id : all[s]) {
                assertThat(Layout.INSTAGRAM.decode(id).shardId()).isEqualTo(s % 2);
            }
        }
        IdOracle.assertUnique(all);
        System.out.println("clock step: " + refusals.get() + " calls refused with IDM01, "
                + java.util.Arrays.stream(all).mapToInt(a -> a.length).sum()
                + " IDs minted, none twice");
    }

    private static long serverMillis(String url) throws SQLException {
        try (Connection c = DriverManager.getConnection(url);
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(
                        "SELECT floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint")) {
            rs.next();
            return rs.getLong(1);
        }
    }
}

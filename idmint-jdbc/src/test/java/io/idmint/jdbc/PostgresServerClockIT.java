package io.idmint.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idmint.Layout;
import io.idmint.spi.Claim;
import io.idmint.spi.ClaimRequest;
import io.idmint.spi.RegistryException;
import io.idmint.spi.RegistryException.Kind;
import io.idmint.spi.WorkerRecord;
import io.idmint.spi.WorkerRegistry;
import io.idmint.testkit.fixture.PostgresServer;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Leases run on the database server's clock, whatever the clients' clocks say: the server here
 * runs an hour behind this JVM (libfaketime). A lease judged by a client's clock would be an
 * hour off: held for an hour longer, or never held at all.
 */
class PostgresServerClockIT {

    private static final long HOUR = TimeUnit.HOURS.toMillis(1);

    @RegisterExtension
    static final PostgresServer pg = PostgresServer.dedicated().clockOffset("-1h");

    private static long serverMillis() throws Exception {
        try (Connection c = DriverManager.getConnection(pg.url());
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT CAST(EXTRACT(EPOCH FROM clock_timestamp())"
                        + " * 1000 AS BIGINT)")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    @Test
    void lease_isJudgedByTheServerClock_notTheClients() throws Exception {
        assertThat(System.currentTimeMillis() - serverMillis()).as("server clock offset")
                .isBetween(HOUR - 60_000, HOUR + 60_000);
        String ns = "clock" + System.nanoTime();
        ClaimRequest req = new ClaimRequest(ns, Layout.SNOWFLAKE.spec(), 0, "", 0, -1, 2_000, "a");
        try (WorkerRegistry a = JdbcRegistries.open(pg.url());
                WorkerRegistry b = JdbcRegistries.open(pg.url())) {
            long start = System.nanoTime();
            long serverBefore = serverMillis();
            Claim held = a.claim(req);
            WorkerRecord w = b.list(ns).get(0);
            assertThat(w.leaseExpiresMillis()).as("expiry in server time")
                    .isBetween(serverBefore + 2_000 - 1_000, serverBefore + 2_000 + 2_000);
            assertThatThrownBy(() -> b.claim(req))
                    .isInstanceOf(RegistryException.class)
                    .extracting(e -> ((RegistryException) e).kind()).isEqualTo(Kind.POOL_FULL);
            Claim next = null;
            while (next == null) {
                try {
                    next = b.claim(req);
                } catch (RegistryException e) {
                    assertThat(e.kind()).isEqualTo(Kind.POOL_FULL);
                    assertThat(Duration.ofNanos(System.nanoTime() - start))
                            .as("the 2 s lease never ran out").isLessThan(Duration.ofSeconds(15));
                    Thread.sleep(100);
                }
            }
            assertThat(Duration.ofNanos(System.nanoTime() - start))
                    .isGreaterThanOrEqualTo(Duration.ofMillis(1_900));
            assertThatThrownBy(() -> a.extend(held, 1_000))
                    .isInstanceOf(RegistryException.class)
                    .extracting(e -> ((RegistryException) e).kind()).isEqualTo(Kind.LEASE_LOST);
        }
    }
}

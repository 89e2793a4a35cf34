package io.idmint.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idmint.Layout;
import io.idmint.WorkerRegistries;
import io.idmint.spi.Claim;
import io.idmint.spi.ClaimRequest;
import io.idmint.spi.RegistryException;
import io.idmint.spi.RegistryException.Kind;
import io.idmint.spi.WorkerRecord;
import io.idmint.spi.WorkerRegistry;
import io.idmint.testkit.WorkerRegistryContract;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The testkit contract plus what every SQL database must also do. A subclass per database
 * declares it (a fixture of {@code io.idmint.testkit.fixture}) and names its URL; each test uses
 * a namespace of its own.
 */
abstract class JdbcRegistryContract extends WorkerRegistryContract {

    /** The registry URL of the database under test. */
    abstract String url();

    @Override
    protected WorkerRegistry newClient() {
        return JdbcRegistries.open(url());
    }

    @Override
    protected boolean hasStoreClock() {
        return true;
    }

    /** A closed client's claims live on until their lease runs out: end them by server time. */
    @Override
    protected Claim awaitClaim(ClaimRequest request) throws Exception {
        expireLeases(url(), namespace);
        return connect().claim(request);
    }

    /**
     * Ends every lease of a namespace now, by the database's clock: what the passing of the TTL
     * does, without waiting for it.
     */
    static void expireLeases(String url, String namespace) throws SQLException {
        JdbcConfig config = JdbcConfig.parse(url, Map.of());
        try (Connection c = DriverManager.getConnection(config.driverUrl());
                PreparedStatement ps = c.prepareStatement("UPDATE idmint_worker SET lease_until = "
                        + config.dialect().nowPlusMillis()
                        + " WHERE namespace = ? AND holder <> ''")) {
            ps.setLong(1, -1000);
            ps.setString(2, namespace);
            ps.executeUpdate();
        }
    }

    private ClaimRequest poolOfOne(long ttlMillis, String holder) {
        return new ClaimRequest(namespace, Layout.SNOWFLAKE.spec(), 1, "dc-one", 0, -1,
                ttlMillis, holder);
    }

    @Test
    void claim_afterLeaseRunsOutOnTheServer_takesOver_andFencesTheOldHolder() throws Exception {
        WorkerRegistry a = connect();
        WorkerRegistry b = connect();
        long start = System.nanoTime();
        Claim old = a.claim(poolOfOne(1_500, "node-a"));
        long token = a.extend(old, 5_000);
        assertThatThrownBy(() -> b.claim(poolOfOne(1_500, "node-b")))
                .isInstanceOf(RegistryException.class)
                .extracting(e -> ((RegistryException) e).kind()).isEqualTo(Kind.POOL_FULL);
        // Node a never hears of it: only the server's clock ends its lease.
        Claim next = null;
        long deadline = start + TimeUnit.SECONDS.toNanos(15);
        while (next == null) {
            try {
                next = b.claim(poolOfOne(1_500, "node-b"));
            } catch (RegistryException e) {
                assertThat(e.kind()).isEqualTo(Kind.POOL_FULL);
                assertThat(System.nanoTime()).as("lease never expired").isLessThan(deadline);
                Thread.sleep(100);
            }
        }
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start))
                .as("taken over before the 1.5 s lease ran out").isGreaterThanOrEqualTo(1_400);
        assertThat(next.hwmMillis()).isEqualTo(5_000);
        assertThat(next.token()).isNotEqualTo(token);
        long stale = token;
        assertThatThrownBy(() -> a.extend(old.withToken(stale), 9_000))
                .isInstanceOf(RegistryException.class)
                .extracting(e -> ((RegistryException) e).kind()).isEqualTo(Kind.LEASE_LOST);
        assertThatThrownBy(() -> a.release(old.withToken(stale), 9_000))
                .isInstanceOf(RegistryException.class)
                .extracting(e -> ((RegistryException) e).kind()).isEqualTo(Kind.LEASE_LOST);
        assertThat(connect().list(namespace)).singleElement()
                .satisfies(w -> assertThat(w.holder()).isEqualTo("node-b"))
                .satisfies(w -> assertThat(w.hwmMillis()).isEqualTo(5_000));
    }

    @Test
    void list_leaseExpiry_isUnixMillisOfServerTimePlusTtl() throws Exception {
        long before = System.currentTimeMillis();
        connect().claim(poolOfOne(30_000, "node-a"));
        long after = System.currentTimeMillis();
        WorkerRecord w = connect().list(namespace).get(0);
        // Same host, so the server's clock is ours: a time-zone slip would be hours off.
        assertThat(w.leaseExpiresMillis())
                .isBetween(before + 30_000 - 1_000, after + 30_000 + 1_000);
    }

    @Test
    void claim_hugeWorkerPool_createsOnlyTheRowsItUses() throws Exception {
        Layout wide = Layout.UID_GENERATOR;
        ClaimRequest req = new ClaimRequest(namespace, wide.spec(), 0, "", wide.maxWorkerId(), -1,
                30_000, "wide");
        WorkerRegistry r = connect();
        assertThat(r.claim(req).workerId()).isZero();
        assertThat(r.claim(req).workerId()).isEqualTo(1);
        ClaimRequest top = new ClaimRequest(namespace, wide.spec(), 0, "", wide.maxWorkerId(),
                wide.maxWorkerId(), 30_000, "wide");
        assertThat(r.claim(top).workerId()).isEqualTo(wide.maxWorkerId());
        assertThat(r.claim(req).workerId()).isEqualTo(2);
        assertThat(r.list(namespace)).extracting(WorkerRecord::workerId)
                .containsExactly(0, 1, 2, wide.maxWorkerId());
    }

    @Test
    void open_byUriScheme_findsThisBackend() throws Exception {
        try (WorkerRegistry r = WorkerRegistries.open(url(), Path.of("unused"))) {
            assertThat(r.claim(request(3, 2)).workerId()).isEqualTo(2);
            assertThat(r.list(namespace)).hasSize(1);
        }
    }

    @Test
    void initSchema_isIdempotent_andKeepsData() throws Exception {
        Claim c = connect().claim(request(3, 1));
        JdbcRegistries.initSchema(url());
        JdbcRegistries.initSchema(url());
        List<WorkerRecord> records = connect().list(namespace);
        assertThat(records).extracting(WorkerRecord::workerId).containsExactly(c.workerId());
    }
}

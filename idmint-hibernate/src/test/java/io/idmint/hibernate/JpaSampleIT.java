package io.idmint.hibernate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idmint.FencedUuidV7;
import io.idmint.IdGenerator;
import io.idmint.codes.CodeCodec;
import io.idmint.hibernate.app.Invoice;
import io.idmint.hibernate.app.Invoices;
import io.idmint.hibernate.app.PurchaseOrder;
import io.idmint.hibernate.app.PurchaseOrders;
import io.idmint.hibernate.app.Reading;
import io.idmint.hibernate.app.Readings;
import io.idmint.hibernate.app.Receipt;
import io.idmint.hibernate.app.Receipts;
import io.idmint.hibernate.app.SampleApp;
import io.idmint.hibernate.app.Shipment;
import io.idmint.hibernate.app.Shipments;
import io.idmint.hibernate.app.Ticket;
import io.idmint.hibernate.app.Tickets;
import io.idmint.hibernate.app.Voucher;
import io.idmint.hibernate.app.Vouchers;
import io.idmint.spi.UnknownTagException;
import io.idmint.testkit.fixture.PostgresServer;
import jakarta.persistence.EntityManagerFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.IntConsumer;
import org.hibernate.SessionFactory;
import org.hibernate.stat.Statistics;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The sample application saving through Spring Data JPA into a real PostgreSQL, with
 * {@link IdmintId} and {@link IdmintSegment} IDs from the starter's beans.
 */
class JpaSampleIT {

    private static final int THREADS = 8;
    private static final int ROWS = 10_000;
    private static final int WORKER = 5;

    @RegisterExtension
    static final PostgresServer pg = PostgresServer.shared();
    private static ConfigurableApplicationContext app;

    @BeforeAll
    static void start(@TempDir Path dir) throws Exception {
        String url = pg.url();
        app = SampleApp.builder().properties(
                "spring.main.web-application-type=none",
                "spring.main.banner-mode=off",
                "spring.datasource.url=" + url,
                "spring.jpa.hibernate.ddl-auto=create",
                "spring.jpa.properties.hibernate.jdbc.batch_size=100",
                "spring.jpa.properties.hibernate.generate_statistics=true",
                "idmint.data-dir=" + dir,
                "idmint.worker=" + WORKER,
                // No idmint.segment.store: segments come from the application's DataSource.
                "idmint.segment.fetch-timeout=30s").run();
    }

    @AfterAll
    static void stop() throws Exception {
        if (app != null) {
            app.close();
        }
    }

    @Test
    void eightThreads_saveOrdersAndInvoices_noDuplicateKey_idsFromThisWorker() throws Exception {
        PurchaseOrders orders = app.getBean(PurchaseOrders.class);
        Invoices invoices = app.getBean(Invoices.class);
        onThreads(thread -> {
            for (int batch = 0; batch < ROWS / 500; batch++) {
                List<PurchaseOrder> o = new ArrayList<>();
                List<Invoice> i = new ArrayList<>();
                for (int r = 0; r < 500; r++) {
                    o.add(new PurchaseOrder("item-" + thread + "-" + batch + "-" + r));
                    i.add(new Invoice("inv-" + thread + "-" + batch + "-" + r));
                }
                orders.saveAll(o);
                invoices.saveAll(i);
            }
        });
        JdbcTemplate sql = app.getBean(JdbcTemplate.class);
        long total = (long) THREADS * ROWS;
        // Other tests add rows of their own: count this test's.
        assertThat(sql.queryForObject("select count(distinct id) from purchase_order where item "
                + "like 'item-%'", Long.class)).isEqualTo(total);
        assertThat(sql.queryForObject("select count(distinct id) from invoice", Long.class))
                .isEqualTo(total);
        IdGenerator ids = app.getBean(IdGenerator.class);
        List<Long> orderIds = sql.queryForList("select id from purchase_order", Long.class);
        assertThat(orderIds).allSatisfy(id -> assertThat(ids.layout().decode(id).workerId())
                .isEqualTo(WORKER));
        // Dense per tag: 80,000 invoices take at most a few ranges' worth of IDs.
        Long max = sql.queryForObject("select max(id) from invoice", Long.class);
        assertThat(max).isLessThan(total + 1_000_000);
    }

    @Test
    void uuidKeys_areFencedUuidV7sOfThisWorkersIds_sortedInTheDatabaseAsTheIds()
            throws Exception {
        Readings readings = app.getBean(Readings.class);
        onThreads(thread -> {
            List<Reading> batch = new ArrayList<>();
            for (int r = 0; r < 2_000; r++) {
                batch.add(new Reading("sensor-" + thread));
            }
            readings.saveAll(batch);
        });
        JdbcTemplate sql = app.getBean(JdbcTemplate.class);
        IdGenerator ids = app.getBean(IdGenerator.class);
        assertThat(sql.queryForObject("select data_type from information_schema.columns where "
                + "table_name = 'reading' and column_name = 'id'", String.class))
                .isEqualTo("uuid");
        // PostgreSQL's uuid order (bytewise) is the order of the IDs the UUIDs carry.
        List<UUID> sorted = sql.queryForList("select id from reading order by id", UUID.class);
        assertThat(sorted).hasSize(THREADS * 2_000);
        long prev = 0;
        for (UUID u : sorted) {
            assertThat(u.version()).isEqualTo(7);
            long id = FencedUuidV7.idOf(u, ids.layout());
            assertThat(id).isGreaterThan(prev);
            assertThat(ids.layout().decode(id).workerId()).isEqualTo(WORKER);
            prev = id;
        }
    }

    @Test
    void serialAttributes_takeTheSerialsNextValues_uniqueAndDense() throws Exception {
        io.idmint.segment.Serials serials = app.getBean(io.idmint.segment.Serials.class);
        serials.define(io.idmint.segment.SerialDefinition.newBuilder("voucher")
                .template("V-{counter:8}{check}").step(50).build());
        Vouchers vouchers = app.getBean(Vouchers.class);
        onThreads(thread -> {
            List<Voucher> batch = new ArrayList<>();
            for (int r = 0; r < 100; r++) {
                batch.add(Voucher.create());
            }
            vouchers.saveAll(batch);
        });
        List<String> numbers = app.getBean(JdbcTemplate.class)
                .queryForList("select number from voucher order by number", String.class);
        assertThat(numbers).hasSize(THREADS * 100).doesNotHaveDuplicates()
                .allMatch(n -> n.matches("V-\\d{8}[0-9A-Z]"));
        // One node: its ranges follow each other, so the numbers are 1 to 800.
        assertThat(numbers.get(0)).startsWith("V-00000001");
        assertThat(numbers.get(numbers.size() - 1)).startsWith("V-00000800");
    }

    @Test
    void saveAll_batchesInserts_noRoundTripPerRow() {
        PurchaseOrders orders = app.getBean(PurchaseOrders.class);
        Statistics stats = app.getBean(EntityManagerFactory.class).unwrap(SessionFactory.class)
                .getStatistics();
        List<PurchaseOrder> o = new ArrayList<>();
        for (int r = 0; r < 1_000; r++) {
            o.add(new PurchaseOrder("batched-" + r));
        }
        long before = stats.getPrepareStatementCount();
        orders.saveAll(o);
        long statements = stats.getPrepareStatementCount() - before;
        // 1,000 rows at batch size 100: the insert is prepared per batch, never per row, and
        // no statement asks the database for an ID.
        assertThat(statements).isLessThanOrEqualTo(10);
        assertThat(o).allSatisfy(e -> assertThat(e.id()).isPositive());
    }

    @Test
    void nonKeyColumns_filledOnceAtInsert_uniqueAndDecodable_neverRewrittenOnUpdate()
            throws Exception {
        Shipments shipments = app.getBean(Shipments.class);
        int perThread = 250;
        onThreads(thread -> {
            List<Shipment> s = new ArrayList<>();
            for (int r = 0; r < perThread; r++) {
                s.add(new Shipment("dest-" + thread + "-" + r));
            }
            shipments.saveAll(s);
        });
        JdbcTemplate sql = app.getBean(JdbcTemplate.class);
        int total = THREADS * perThread;
        List<Map<String, Object>> rows = sql.queryForList("select id, number, event_id, "
                + "tracking_code from shipment");
        assertThat(rows).hasSize(total);
        // The key is the database's; the columns beside it are idmint's, each value once.
        assertThat(rows).extracting(r -> r.get("number")).doesNotHaveDuplicates()
                .allSatisfy(n -> assertThat((Long) n).isBetween(1L, total + 1_000_000L));
        IdGenerator ids = app.getBean(IdGenerator.class);
        CodeCodec codes = app.getBean(CodeCodec.class);
        Set<Long> minted = new HashSet<>();
        for (Map<String, Object> r : rows) {
            minted.add(Long.parseLong((String) r.get("event_id")));
            minted.add(codes.decode((String) r.get("tracking_code")));
        }
        assertThat(minted).hasSize(2 * total).allSatisfy(id -> assertThat(
                ids.layout().decode(id).workerId()).isEqualTo(WORKER));

        Map<String, Object> first = rows.get(0);
        Shipment s = shipments.findById((Long) first.get("id")).orElseThrow();
        s.sendTo("elsewhere");
        shipments.saveAndFlush(s);
        Map<String, Object> after = sql.queryForMap("select number, event_id, tracking_code, "
                + "destination from shipment where id = ?", first.get("id"));
        assertThat(after).containsEntry("destination", "elsewhere")
                .containsEntry("number", first.get("number"))
                .containsEntry("event_id", first.get("event_id"))
                .containsEntry("tracking_code", first.get("tracking_code"));
    }

    @Test
    void dataSourceSegments_anApplicationsRollback_neverGivesAValueBack() {
        TransactionTemplate tx = new TransactionTemplate(
                app.getBean(PlatformTransactionManager.class));
        Receipts receipts = app.getBean(Receipts.class);
        // The tag is created and its first range taken while this transaction is open: on
        // connections of idmint's own, committed on their own.
        Long rolledBack = tx.execute(status -> {
            Receipt r = receipts.saveAndFlush(new Receipt("rolled back"));
            status.setRollbackOnly();
            return r.id();
        });
        JdbcTemplate sql = app.getBean(JdbcTemplate.class);
        assertThat(sql.queryForObject("select count(*) from receipt", Long.class)).isZero();
        assertThat(sql.queryForObject("select next_id from idmint_segment where tag = "
                + "'receipt'", Long.class)).isGreaterThan(rolledBack);
        assertThat(receipts.save(new Receipt("kept")).id()).isGreaterThan(rolledBack);
    }

    @Test
    void segmentTag_withAutoCreateOff_failsNamingTheTag() {
        Tickets tickets = app.getBean(Tickets.class);
        assertThatThrownBy(() -> tickets.save(new Ticket()))
                .hasRootCauseInstanceOf(UnknownTagException.class)
                .rootCause().hasMessageContaining("ticket");
    }

    /** Runs {@code work} on {@link #THREADS} threads at once, each with its number; waits. */
    private static void onThreads(IntConsumer work) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                int thread = t;
                done.add(pool.submit(() -> work.accept(thread)));
            }
            for (Future<?> f : done) {
                f.get();
            }
        } finally {
            pool.shutdown();
        }
    }
}

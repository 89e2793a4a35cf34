package io.idmint.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idmint.IdGenerator;
import io.idmint.codes.CodeCodec;
import io.idmint.sample.badtype.BadTypeApp;
import io.idmint.sample.missingtag.MissingTagApp;
import io.idmint.sample.parcels.Parcel;
import io.idmint.sample.parcels.ParcelApp;
import io.idmint.sample.parcels.Parcels;
import io.idmint.sample.parcels.Stamp;
import io.idmint.sample.parcels.Stamps;
import io.idmint.testkit.EtcdCluster;
import io.idmint.testkit.Together;
import io.idmint.testkit.fixture.PostgresServer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Spring Data JDBC (no JPA) with the starter and idmint-entity, on a real PostgreSQL: the
 * sample application's aggregates get their key, public code and dense label before their first
 * insert, from 8 threads at once, never rewritten on update; two instances on a real etcd never
 * share a key; a field that cannot be filled fails the start, naming it. Run on Spring Boot 3.5
 * here and on Spring Boot 4 by idmint-spring-boot4-tests.
 */
class DataJdbcSampleIT {

    private static final int THREADS = 8;
    private static final int ROWS = 10_000;
    private static final int BATCH = 500;

    @RegisterExtension
    static final PostgresServer pg = PostgresServer.shared();

    private static ConfigurableApplicationContext app;

    @TempDir
    static Path dir;

    @BeforeAll
    static void start() {
        app = ParcelApp.builder().properties(
                "spring.datasource.url=" + pg.url(),
                "idmint.data-dir=" + dir.resolve("app"),
                // No idmint.segment.store: segments come from the application's DataSource.
                "idmint.segment.fetch-timeout=30s").run();
        app.getBean(JdbcTemplate.class).execute(ParcelApp.SCHEMA);
    }

    @AfterAll
    static void stop() {
        if (app != null) {
            app.close();
        }
    }

    @Test
    void eightThreads_everyRowKeyed_unique_dense_andDecodingToTheWorker() throws Exception {
        JdbcTemplate sql = app.getBean(JdbcTemplate.class);
        long before = sql.queryForObject("select count(*) from parcel", Long.class);
        Together.run(THREADS, () -> save(app, ROWS));

        long total = (long) THREADS * ROWS;
        Map<String, Object> counts = sql.queryForMap("select count(*) n, count(distinct id) ids,"
                + " count(distinct tracking_code) codes, count(distinct label) labels,"
                + " max(label) - min(label) + 1 span from parcel");
        assertThat(counts).containsEntry("n", before + total)
                .containsEntry("ids", before + total).containsEntry("codes", before + total)
                .containsEntry("labels", before + total);
        // One node, no restart: the labels are dense.
        assertThat(((Number) counts.get("span")).longValue()).isEqualTo(before + total);

        IdGenerator ids = app.getBean(IdGenerator.class);
        CodeCodec codes = app.getBean(CodeCodec.class);
        int worker = ids.status().workerId();
        sql.query("select id, tracking_code from parcel", row -> {
            long id = row.getLong(1);
            assertThat(ids.layout().decode(id).workerId()).isEqualTo(worker);
            // The code is an ID of its own, drawn for the field, hidden by the code key.
            assertThat(ids.layout().decode(codes.decode(row.getString(2))).workerId())
                    .isEqualTo(worker);
        });
    }

    @Test
    void savedAgain_keepsEveryValue() {
        Parcels parcels = app.getBean(Parcels.class);
        Parcel parcel = parcels.save(new Parcel("first"));
        Long id = parcel.id;
        String code = parcel.trackingCode;
        long label = parcel.label;

        parcel.note = "second";
        parcels.save(parcel);

        Parcel read = parcels.findById(id).orElseThrow();
        assertThat(read.note).isEqualTo("second");
        assertThat(read.trackingCode).isEqualTo(code);
        assertThat(read.label).isEqualTo(label);
    }

    @Test
    void immutableRecord_getsItsKey() {
        Stamps stamps = app.getBean(Stamps.class);
        Stamp saved = stamps.save(new Stamp(null, "first class"));

        assertThat(saved.id()).isNotNull();
        assertThat(stamps.findById(saved.id())).contains(saved);
        assertThat(stamps.save(new Stamp(saved.id(), "second class")).id()).isEqualTo(saved.id());
        assertThat(stamps.findById(saved.id()).orElseThrow().text()).isEqualTo("second class");
    }

    @Test
    void twoInstancesOnEtcd_neverShareAKey() throws Exception {
        try (EtcdCluster etcd = EtcdCluster.single();
             ConfigurableApplicationContext a = onEtcd(etcd, "a");
             ConfigurableApplicationContext b = onEtcd(etcd, "b")) {
            int workerA = a.getBean(IdGenerator.class).status().workerId();
            int workerB = b.getBean(IdGenerator.class).status().workerId();
            assertThat(workerA).isNotEqualTo(workerB);
            JdbcTemplate sql = a.getBean(JdbcTemplate.class);
            long before = sql.queryForObject("select count(*) from parcel", Long.class);
            long lastLabel = sql.queryForObject("select coalesce(max(label), 0) from parcel",
                    Long.class);

            int rows = ROWS / 2;
            Together.run(2, () -> save(a, rows), () -> save(b, rows));

            long total = before + 4L * rows;
            assertThat(sql.queryForMap("select count(distinct id) ids, count(distinct label) "
                    + "labels from parcel")).containsEntry("ids", total)
                    .containsEntry("labels", total);
            IdGenerator ids = a.getBean(IdGenerator.class);
            // The store hands both instances labels above every earlier one.
            assertThat(sql.queryForList("select id from parcel where label > ?", Long.class,
                    lastLabel)).hasSize(4 * rows)
                    .allSatisfy(id -> assertThat(ids.layout().decode(id).workerId())
                            .isIn(workerA, workerB));
        }
    }

    @Test
    void fieldThatCannotHoldAnId_failsTheStart_namingIt() {
        assertThatThrownBy(() -> other(BadTypeApp.class).run())
                .hasStackTraceContaining("@IdmintId on " + BadTypeApp.Crate.class.getName()
                        + ".id: the field must be a long, Long, String or UUID, not a "
                        + "java.lang.Integer");
    }

    @Test
    void tagThatDoesNotExist_withAutoCreateOff_failsTheStart_namingIt() {
        assertThatThrownBy(() -> other(MissingTagApp.class).run())
                .hasStackTraceContaining("@IdmintSegment(\"no-such-tag\") on "
                        + MissingTagApp.Ticket.class.getName() + ".id: the segment store has "
                        + "no tag 'no-such-tag' and autoCreate is false");
    }

    private static SpringApplicationBuilder other(Class<?> application) {
        return new SpringApplicationBuilder(application).properties(
                "spring.main.web-application-type=none",
                "spring.main.banner-mode=off",
                "spring.datasource.url=" + pg.url(),
                "idmint.data-dir=" + dir.resolve(application.getSimpleName()));
    }

    private static ConfigurableApplicationContext onEtcd(EtcdCluster etcd, String name) {
        return ParcelApp.builder().properties(
                "spring.datasource.url=" + pg.url(),
                "idmint.registry=etcd://" + etcd.endpoints() + "/datajdbc",
                "idmint.data-dir=" + dir.resolve(name),
                "idmint.segment.fetch-timeout=30s").run();
    }

    /** Saves {@code rows} parcels and as many stamps, {@value #BATCH} a call. */
    private static void save(ConfigurableApplicationContext app, int rows) {
        Parcels parcels = app.getBean(Parcels.class);
        Stamps stamps = app.getBean(Stamps.class);
        for (int done = 0; done < rows; done += BATCH) {
            List<Parcel> p = new ArrayList<>(BATCH);
            List<Stamp> s = new ArrayList<>(BATCH);
            for (int i = 0; i < BATCH; i++) {
                p.add(new Parcel("n" + i));
                s.add(new Stamp(null, "s" + i));
            }
            parcels.saveAll(p);
            assertThat(stamps.saveAll(s)).extracting(Stamp::id).doesNotContainNull();
        }
    }
}

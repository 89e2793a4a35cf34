package io.idmint.mybatis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idmint.IdGenerator;
import io.idmint.codes.CodeCodec;
import io.idmint.mybatis.app.MybatisApp;
import io.idmint.mybatis.app.Voucher;
import io.idmint.mybatis.app.Vouchers;
import io.idmint.mybatis.bad.BadMappingApp;
import io.idmint.testkit.EtcdCluster;
import io.idmint.testkit.Together;
import io.idmint.testkit.fixture.PostgresServer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.ibatis.session.ExecutorType;
import org.apache.ibatis.session.SqlSession;
import org.apache.ibatis.session.SqlSessionFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * MyBatis (its own Spring Boot starter) with idmint's starter and idmint-mybatis, on a real
 * PostgreSQL: the sample application's mapper SQL knows nothing of idmint, yet every inserted
 * row has its key, public code and dense number, from 8 threads of multi-row inserts, from a
 * batch executor, and from two instances on a real etcd; an UPDATE is never filled; an insert
 * whose entity cannot be filled fails the start, naming it. Run on Spring Boot 3.5 here and on
 * Spring Boot 4 by idmint-mybatis-boot4-tests.
 */
class MybatisSampleIT {

    private static final int THREADS = 8;
    private static final int ROWS = 10_000;
    private static final int BATCH = 500;

    @RegisterExtension
    static final PostgresServer pg = PostgresServer.shared();

    @TempDir
    static Path dir;

    private static ConfigurableApplicationContext app;

    @BeforeAll
    static void start() {
        app = MybatisApp.builder().properties(
                "spring.datasource.url=" + pg.url(),
                "idmint.data-dir=" + dir.resolve("app"),
                // No idmint.segment.store: segments come from the application's DataSource.
                "idmint.segment.fetch-timeout=30s").run();
        app.getBean(JdbcTemplate.class).execute(MybatisApp.SCHEMA);
    }

    @AfterAll
    static void stop() {
        if (app != null) {
            app.close();
        }
    }

    @Test
    void eightThreads_multiRowInserts_everyRowKeyed_unique_dense_andDecodingToTheWorker()
            throws Exception {
        JdbcTemplate sql = app.getBean(JdbcTemplate.class);
        long before = sql.queryForObject("select count(*) from voucher", Long.class);

        Together.run(THREADS, () -> insert(app, ROWS));

        long total = before + (long) THREADS * ROWS;
        Map<String, Object> counts = sql.queryForMap("select count(*) n, count(distinct id) ids,"
                + " count(distinct code) codes, count(distinct number) numbers,"
                + " max(number) - min(number) + 1 span from voucher");
        assertThat(counts).containsEntry("n", total).containsEntry("ids", total)
                .containsEntry("codes", total).containsEntry("numbers", total);
        // One node, no restart: the numbers are dense.
        assertThat(((Number) counts.get("span")).longValue()).isEqualTo(total);
        IdGenerator ids = app.getBean(IdGenerator.class);
        CodeCodec codes = app.getBean(CodeCodec.class);
        int worker = ids.status().workerId();
        sql.query("select id, code from voucher", row -> {
            assertThat(ids.layout().decode(row.getLong(1)).workerId()).isEqualTo(worker);
            assertThat(ids.layout().decode(codes.decode(row.getString(2))).workerId())
                    .isEqualTo(worker);
        });
    }

    @Test
    void batchExecutor_fillsEachRow() {
        SqlSessionFactory factory = app.getBean(SqlSessionFactory.class);
        List<Voucher> vouchers = new ArrayList<>();
        try (SqlSession session = factory.openSession(ExecutorType.BATCH)) {
            Vouchers mapper = session.getMapper(Vouchers.class);
            for (int i = 0; i < 1_000; i++) {
                Voucher v = new Voucher("batch");
                vouchers.add(v);
                mapper.insert(v);
            }
            session.commit();
        }
        assertThat(vouchers).extracting(v -> v.id).doesNotContainNull().doesNotHaveDuplicates();
        assertThat(app.getBean(JdbcTemplate.class).queryForObject(
                "select count(*) from voucher where note = 'batch'", Long.class))
                .isEqualTo(1_000);
    }

    @Test
    void update_isNeverFilled_andAnInsertedRowKeepsItsValues() {
        Vouchers vouchers = app.getBean(Vouchers.class);
        Voucher v = new Voucher("first");
        vouchers.insert(v);
        Voucher stored = vouchers.find(v.id);
        assertThat(stored.code).isEqualTo(v.code);
        assertThat(stored.number).isEqualTo(v.number);

        Voucher change = new Voucher("second");
        change.id = v.id;
        assertThat(vouchers.updateNote(change)).isEqualTo(1);

        assertThat(change.code).isNull();
        assertThat(change.number).isZero();
        Voucher read = vouchers.find(v.id);
        assertThat(read.note).isEqualTo("second");
        assertThat(read.code).isEqualTo(v.code);
        assertThat(read.number).isEqualTo(v.number);
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
            long before = sql.queryForObject("select count(*) from voucher", Long.class);
            long lastNumber = sql.queryForObject(
                    "select coalesce(max(number), 0) from voucher", Long.class);

            int rows = ROWS / 2;
            Together.run(2, () -> insert(a, rows), () -> insert(b, rows));

            long total = before + 4L * rows;
            assertThat(sql.queryForMap("select count(distinct id) ids, count(distinct number) "
                    + "numbers from voucher")).containsEntry("ids", total)
                    .containsEntry("numbers", total);
            IdGenerator ids = a.getBean(IdGenerator.class);
            // The store hands both instances numbers above every earlier one.
            assertThat(sql.queryForList("select id from voucher where number > ?", Long.class,
                    lastNumber)).hasSize(4 * rows)
                    .allSatisfy(id -> assertThat(ids.layout().decode(id).workerId())
                            .isIn(workerA, workerB));
        }
    }

    @Test
    void insertWhoseEntityCannotHoldAnId_failsTheStart_namingIt() {
        assertThatThrownBy(() -> new SpringApplicationBuilder(BadMappingApp.class).properties(
                "spring.main.web-application-type=none",
                "spring.main.banner-mode=off",
                "spring.datasource.url=" + pg.url(),
                "idmint.data-dir=" + dir.resolve("bad")).run())
                .hasStackTraceContaining("MyBatis statement "
                        + BadMappingApp.Crates.class.getName() + ".insert: @IdmintId on "
                        + BadMappingApp.Crate.class.getName() + ".id: the field must be a long, "
                        + "Long, String or UUID, not a java.lang.Integer");
    }

    private static ConfigurableApplicationContext onEtcd(EtcdCluster etcd, String name) {
        return MybatisApp.builder().properties(
                "spring.datasource.url=" + pg.url(),
                "idmint.registry=etcd://" + etcd.endpoints() + "/mybatis",
                "idmint.data-dir=" + dir.resolve(name),
                "idmint.segment.fetch-timeout=30s").run();
    }

    /** Inserts {@code rows} vouchers, {@value #BATCH} in one multi-row INSERT. */
    private static void insert(ConfigurableApplicationContext app, int rows) {
        Vouchers vouchers = app.getBean(Vouchers.class);
        for (int done = 0; done < rows; done += BATCH) {
            List<Voucher> batch = new ArrayList<>(BATCH);
            for (int i = 0; i < BATCH; i++) {
                batch.add(new Voucher("n" + i));
            }
            assertThat(vouchers.insertAll(batch)).isEqualTo(BATCH);
        }
    }
}

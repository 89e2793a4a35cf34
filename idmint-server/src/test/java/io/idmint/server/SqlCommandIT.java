package io.idmint.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.idmint.server.harness.Cli;
import io.idmint.testkit.fixture.PostgresServer;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@code idmint sql install|verify} against a real PostgreSQL, read back by decode. */
class SqlCommandIT {

    private static final String EPOCH = "2025-06-01T00:00:00Z";
    @RegisterExtension
    static final PostgresServer pg = PostgresServer.shared();

    private static String url() {
        return pg.url();
    }

    private static long mint(String url, String function) throws Exception {
        try (Connection c = DriverManager.getConnection(url);
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT " + function + "()")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    @Test
    void install_thenVerify_thenDecodeReadsTheShardAndTime() throws Exception {
        // A database of its own, for a layout other than the default one the others use.
        String url = pg.createDatabase("epoch_2025");
        Cli.Result install = Cli.run("sql", "install", "--layout", "instagram", "--epoch", EPOCH,
                "--schema", "orders_7", "--shard", "7", "--jdbc-url", url);
        assertThat(install.exitCode()).as(install.err()).isZero();
        assertThat(install.err()).contains("installed orders_7.next_id() for shard 7");

        // The shard is now the schema's configured one: verify needs no --shard.
        Cli.Result verify = Cli.run("sql", "verify", "--layout", "instagram", "--epoch", EPOCH,
                "--schema", "orders_7", "--jdbc-url", url);
        assertThat(verify.exitCode()).as(verify.err()).isZero();
        assertThat(verify.out()).startsWith("ok: orders_7.next_id() matches shard 7")
                .contains("decodes to shard 7");

        long before = System.currentTimeMillis();
        long id = mint(url, "orders_7.next_id");
        Cli.Result decode = Cli.run("decode", "--layout", "instagram,epoch=" + EPOCH,
                Long.toString(id));
        assertThat(decode.exitCode()).as(decode.err()).isZero();
        assertThat(decode.out()).contains("\"shard_id\":7");
        long ts = Long.parseLong(decode.out().replaceAll("(?s).*\"timestamp_ms\":(\\d+).*", "$1"));
        assertThat(ts).isBetween(before - 1, System.currentTimeMillis());
    }

    @Test
    void verify_withAnotherEpoch_exits1NamingTheDifference() {
        assertThat(Cli.run("sql", "install", "--layout", "instagram", "--schema", "epoch_a",
                "--shard", "8", "--jdbc-url", url()).exitCode()).isZero();

        Cli.Result r = Cli.run("sql", "verify", "--layout", "instagram", "--epoch", EPOCH,
                "--schema", "epoch_a", "--jdbc-url", url());

        assertThat(r.exitCode()).isEqualTo(1);
        assertThat(r.err()).contains("idmint: sql verify: epoch_a.next_id() has epoch_ms = "
                + "1767225600000, expected 1748736000000");
    }

    @Test
    void install_ofAShardTakenByAnotherSchema_exits2NamingTheOwner() {
        assertThat(Cli.run("sql", "install", "--layout", "instagram", "--schema", "owner_a",
                "--shard", "9", "--jdbc-url", url()).exitCode()).isZero();

        Cli.Result r = Cli.run("sql", "install", "--layout", "instagram", "--schema", "owner_b",
                "--shard", "9", "--jdbc-url", url());

        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.err()).startsWith("idmint: cannot register shard 9 for schema owner_b")
                .contains("shard 9 is registered to schema owner_a");
    }

    @Test
    void install_ofAnotherLayoutThanTheDatabases_exits2NamingTheRegisteredLayout() {
        assertThat(Cli.run("sql", "install", "--layout", "instagram", "--schema", "layout_a",
                "--shard", "11", "--jdbc-url", url()).exitCode()).isZero();

        Cli.Result r = Cli.run("sql", "install", "--layout", "instagram", "--epoch", EPOCH,
                "--schema", "layout_b", "--shard", "12", "--jdbc-url", url());

        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.err()).startsWith("idmint: cannot register shard 12 for schema layout_b "
                + "with layout time=41,shard=13,sequence=9,tick=1ms,epoch=" + EPOCH
                + ": this database's shards use layout time=41,shard=13,sequence=9,tick=1ms,"
                + "epoch=2026-01-01T00:00:00Z (shard ")
                .contains("install this layout in another database");
    }

    @Test
    void installPrint_withTheDatabase_readsTheConfiguredShard_changesNothing() {
        assertThat(Cli.run("sql", "install", "--layout", "instagram", "--schema", "printed",
                "--shard", "10", "--jdbc-url", url()).exitCode()).isZero();

        Cli.Result r = Cli.run("sql", "install", "--print", "--layout", "instagram", "--schema",
                "printed", "--jdbc-url", url());

        assertThat(r.exitCode()).as(r.err()).isZero();
        assertThat(r.out()).contains("shard_id CONSTANT bigint := 10;");
    }

    @Test
    void functions_boundAWindowOfMintedIds_asIdmintRangeDoes() throws Exception {
        String url = pg.createDatabase("functions");
        assertThat(Cli.run("sql", "install", "--layout", "instagram", "--schema", "shop",
                "--shard", "3", "--jdbc-url", url).exitCode()).isZero();
        Cli.Result functions = Cli.run("sql", "functions", "--layout", "instagram",
                "--jdbc-url", url);
        assertThat(functions.exitCode()).as(functions.err()).isZero();
        assertThat(functions.err()).contains("installed idmint_time(), idmint_shard(), "
                + "idmint_sequence(), idmint_lo(), idmint_hi() for layout time=41,shard=13");

        try (Connection c = DriverManager.getConnection(url);
                Statement s = c.createStatement()) {
            s.execute("create table orders (id bigint primary key default shop.next_id(), "
                    + "made timestamptz not null default clock_timestamp())");
            for (int i = 0; i < 50; i++) {
                s.execute("insert into orders default values");
            }
            // Every row in the window [its own time, an hour later) by the ID alone.
            try (ResultSet r = s.executeQuery("select count(*), count(*) filter (where "
                    + "idmint_shard(id) = 3 and abs(extract(epoch from idmint_time(id) - made)) "
                    + "< 1), count(*) filter (where id >= idmint_lo(made - interval '1 ms') and "
                    + "id < idmint_hi(made + interval '1 ms')) from orders")) {
                r.next();
                assertThat(r.getLong(2)).isEqualTo(r.getLong(1));
                assertThat(r.getLong(3)).isEqualTo(r.getLong(1)).isEqualTo(50);
            }
            Cli.Result range = Cli.run("range", "--layout", "instagram", "--from",
                    "2026-11-01T00:00:00Z", "--to", "2026-12-01T00:00:00Z", "--json");
            try (ResultSet r = s.executeQuery("select idmint_lo('2026-11-01T00:00:00Z'), "
                    + "idmint_hi('2026-12-01T00:00:00Z')")) {
                r.next();
                assertThat(range.out()).contains("\"id_from\":\"" + r.getLong(1) + "\"")
                        .contains("\"id_to\":\"" + r.getLong(2) + "\"");
            }
        }
    }
}

package io.idmint.server.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.idmint.server.harness.Cli;
import org.junit.jupiter.api.Test;

/** {@code idmint sql} without a database: the printed SQL and every refusal of bad input. */
class SqlCommandTest {

    @Test
    void installPrint_withShard_printsTheScriptForTheLayoutAndEpoch() {
        Cli.Result r = Cli.run("sql", "install", "--print", "--layout", "instagram", "--epoch",
                "2025-01-01T00:00:00Z", "--schema", "shop_3", "--shard", "3");

        assertThat(r.exitCode()).as(r.err()).isZero();
        assertThat(r.out()).startsWith("-- idmint sql install: shop_3.next_id() for shard 3")
                .contains("epoch_ms CONSTANT bigint := 1735689600000;")
                .contains("shard_id CONSTANT bigint := 3;")
                .contains("modulus CONSTANT bigint := 512;")
                .contains("CREATE OR REPLACE FUNCTION shop_3.next_id() RETURNS bigint")
                .endsWith("COMMIT;\n");
    }

    @Test
    void layoutWithoutAShardField_exits2WithTheReason() {
        Cli.Result r = Cli.run("sql", "install", "--print", "--schema", "s", "--shard", "1");

        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.err()).contains("has no shard field");
        assertThat(r.out()).isEmpty();
    }

    @Test
    void modulusWiderThanTheSequenceField_exits2WithTheReason() {
        Cli.Result r = Cli.run("sql", "install", "--print", "--layout", "instagram", "--schema",
                "s", "--shard", "1", "--modulus", "1024");

        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.err()).contains("nextval modulus 1024").contains("9 bits (values 0..511)");
    }

    @Test
    void unsigned64BitLayout_exits2NamingTheRule() {
        Cli.Result r = Cli.run("sql", "install", "--print", "--layout",
                "time=42,shard=13,sequence=9", "--schema", "s", "--shard", "1");

        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.err()).contains("uses all 64 bits; idmint mints at most 63");
        assertThat(r.out()).isEmpty();
    }

    @Test
    void epochGivenTwice_exits2() {
        Cli.Result r = Cli.run("sql", "install", "--print", "--layout",
                "instagram,epoch=2025-01-01T00:00:00Z", "--epoch", "0", "--schema", "s",
                "--shard", "1");

        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.err()).contains("already sets an epoch");
    }

    @Test
    void printWithoutShardOrDatabase_exits2AskingForTheShard() {
        Cli.Result r = Cli.run("sql", "install", "--print", "--layout", "instagram", "--schema",
                "s");

        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.err()).contains("schema 's' has no configured shard").contains("--shard");
    }

    @Test
    void badSchemaOrUrlOrMissingAction_exit2() {
        assertThat(Cli.run("sql", "install", "--print", "--layout", "instagram", "--schema",
                "Bad-Name", "--shard", "1").err()).contains("schema 'Bad-Name'");
        Cli.Result url = Cli.run("sql", "verify", "--layout", "instagram", "--schema", "s",
                "--shard", "1", "--jdbc-url", "jdbc:mysql://127.0.0.1/x?password=secret");
        assertThat(url.exitCode()).isEqualTo(2);
        assertThat(url.err()).contains("not a jdbc:postgresql: URL").doesNotContain("secret");
        assertThat(Cli.run("sql", "install", "--layout", "instagram", "--schema", "s", "--shard",
                "1").err()).contains("--jdbc-url is missing");
        assertThat(Cli.run("sql").exitCode()).isEqualTo(2);
        assertThat(Cli.run("sql", "install", "--print").err()).contains("--schema");
    }

    @Test
    void functionsPrint_writesEachFunctionForTheLayoutAndDialect() {
        Cli.Result pg = Cli.run("sql", "functions", "--print", "--dialect", "postgresql",
                "--layout", "instagram", "--schema", "ids");
        assertThat(pg.exitCode()).as(pg.err()).isZero();
        assertThat(pg.out()).contains("CREATE OR REPLACE FUNCTION ids.idmint_time(id bigint)")
                .contains("ids.idmint_shard(id bigint)").contains("ids.idmint_sequence(")
                .doesNotContain("idmint_worker").contains("ids.idmint_lo(ts timestamptz)")
                .contains("ids.idmint_hi(ts timestamptz)");

        Cli.Result mysql = Cli.run("sql", "functions", "--print", "--dialect", "mysql");
        assertThat(mysql.exitCode()).as(mysql.err()).isZero();
        assertThat(mysql.out()).contains("DELIMITER //").contains("CREATE FUNCTION "
                + "idmint_worker(id BIGINT)").contains("idmint_lo(ts DATETIME(6))")
                .endsWith("DELIMITER ;\n");
    }

    @Test
    void functions_badInput_exits2NamingIt() {
        assertThat(Cli.run("sql", "functions", "--print").err())
                .contains("--dialect is missing");
        assertThat(Cli.run("sql", "functions", "--print", "--dialect", "oracle").err())
                .contains("--dialect 'oracle' is neither postgresql nor mysql");
        Cli.Result r = Cli.run("sql", "functions", "--jdbc-url", "jdbc:sqlite:x.db");
        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.err()).contains("'jdbc:sqlite:x.db' is neither jdbc:postgresql:");
        assertThat(Cli.run("sql", "functions", "--print", "--dialect", "mysql", "--schema",
                "a;b").err()).contains("schema 'a;b' is not a plain identifier");
        assertThat(Cli.run("sql", "functions", "--dialect", "mysql").err())
                .contains("--jdbc-url is missing");
    }
}

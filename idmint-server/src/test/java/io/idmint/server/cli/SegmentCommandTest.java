package io.idmint.server.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.idmint.server.Server;
import io.idmint.server.config.Config;
import io.idmint.server.harness.Cli;
import io.idmint.server.harness.Http;
import io.idmint.server.harness.TestServers;
import io.idmint.spi.support.Names;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code idmint segment create|list} in-process, on the default store: H2 under data-dir. */
class SegmentCommandTest {

    @TempDir
    Path data;

    /** The command on {@link #data}, set through the environment as an operator may. */
    private Cli.Result run(String... args) {
        return Cli.run(Map.of(Config.DATA_DIR.envVar(), data.toString()), args);
    }

    /**
     * The curl line names the port the server listens on (it writes its address beside the
     * store), not this command's configured one: the server here is on an ephemeral port, and
     * the hint once said 8080.
     */
    @Test
    void create_nextToARunningServer_saysToUseItsApiWithTheExactCurlLine() {
        try (Server server = TestServers.start(data)) {
            String api = "http://127.0.0.1:" + server.httpPort() + "/api/v1/segments";
            assertThat(new Http(server.httpPort()).get("/api/v1/segments").status())
                    .isEqualTo(200);

            Cli.Result r = run("segment", "create", "order");

            assertThat(r.exitCode()).isEqualTo(1);
            assertThat(r.err()).contains("the embedded segment store " + data.resolve(
                    "segments.mv.db") + " is open in another process, most likely idmint serve "
                    + "on this data directory")
                    .contains("Create the tag through that server instead:\n  curl -X POST "
                    + api + " -H 'Content-Type: application/json' -d '{\"tag\":\"order\"}'\n")
                    .doesNotContain("Database may be already in use");
            assertThat(run("segment", "list").err()).contains("Ask that server instead: curl "
                    + api + "\n");
        }
        assertThat(data.resolve("serve.url")).as("removed when the server stops").doesNotExist();
    }

    @Test
    void create_thenList_showsTheTagsWithNextAndStep_inTheDefaultH2Store() {
        Cli.Result order = run("segment", "create", "order");
        Cli.Result user = run("segment", "create", "user", "--start", "1000", "--step", "50");

        assertThat(order.exitCode()).as(order.err()).isZero();
        assertThat(order.err()).isEqualTo("idmint: created segment tag 'order': first ID 1, "
                + "step 1000\n");
        assertThat(order.out()).isEmpty();
        assertThat(user.exitCode()).as(user.err()).isZero();
        assertThat(Files.exists(data.resolve("segments.mv.db"))).isTrue();
        Cli.Result list = run("segment", "list");
        assertThat(list.exitCode()).as(list.err()).isZero();
        assertThat(list.lines()).containsExactly(
                "tag                      next                 step",
                "order                    1                    1000",
                "user                     1000                 50");
        Cli.Result json = run("segment", "list", "--json");
        assertThat(json.lines()).containsExactly("{\"tag\":\"order\",\"next\":\"1\",\"step\":1000}",
                "{\"tag\":\"user\",\"next\":\"1000\",\"step\":50}");
    }

    @Test
    void create_stepFromConfig_envAndFile() throws Exception {
        Path file = Files.writeString(data.resolve("idmint.properties"), "segment.step=70\n");
        Cli.Result fromFile = run("segment", "create", "a", "--config", file.toString());
        Cli.Result fromEnv = Cli.run(Map.of("IDMINT_SEGMENT_STEP", "80", "IDMINT_DATA_DIR",
                data.toString()), "segment", "create", "b");

        assertThat(fromFile.err()).as(fromFile.err()).contains("step 70");
        assertThat(fromEnv.err()).as(fromEnv.err()).contains("step 80");
        assertThat(run("segment", "list").out()).contains("a                        1     "
                + "               70").contains("b                        1                    80");
    }

    @Test
    void create_existingTag_exit2SayingSo_andKeepsIt() {
        assertThat(run("segment", "create", "order", "--start", "7").exitCode()).isZero();

        Cli.Result again = run("segment", "create", "order");

        assertThat(again.exitCode()).isEqualTo(2);
        assertThat(again.err()).isEqualTo("idmint: segment tag 'order' exists already\n");
        assertThat(run("segment", "list").out()).contains("order                    7 ");
    }

    @Test
    void create_badTagStartOrStep_exit2NamingIt_andCreatesNothing() {
        assertUsage(run("segment", "create", "a/b"), "segment tag 'a/b' must be "
                + Names.TAG_RULE);
        assertUsage(run("segment", "create", "t", "--start", "-1"), "start must be from 0 to "
                + "2305843009213693952 (2^61), got -1");
        assertUsage(run("segment", "create", "t", "--step", "0"), "step must be from 1 to "
                + "1099511627776 (2^40), got 0");
        assertUsage(run("segment", "create", "t", "--step", "ten"), "'ten'");
        assertUsage(run("segment", "create", "t", "--segment-step", "0"),
                "segment.step '0' (from flag --segment-step) is not valid");
        assertUsage(run("segment", "create"), "Missing required parameter: 'TAG'");
        assertUsage(Cli.run("segment"), "missing action: create or list");
        assertUsage(run("segment", "drop", "t"), "drop");
        assertThat(run("segment", "list").lines()).hasSize(1);
    }

    @Test
    void storeUnreachable_exit1NamingTheStore() {
        // A port nothing listens on, and a short timeout.
        Cli.Result r = run("segment", "list", "--segment-store",
                "jdbc:postgresql://127.0.0.1:1/x?idmint.timeout=500ms");

        assertThat(r.exitCode()).as(r.err()).isEqualTo(1);
        assertThat(r.err()).startsWith("idmint: the segment store did not answer: ");
        assertThat(r.out()).isEmpty();
    }

    @Test
    void badStoreUri_exit2NamingIt() {
        Cli.Result r = run("segment", "list", "--segment-store", "nope://x");

        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.err()).contains("no backend for scheme 'nope'");
    }

    private static void assertUsage(Cli.Result r, String message) {
        assertThat(r.exitCode()).as(r.err()).isEqualTo(2);
        assertThat(r.err()).contains(message);
        assertThat(r.out()).isEmpty();
    }
}

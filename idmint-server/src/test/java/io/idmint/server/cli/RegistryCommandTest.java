package io.idmint.server.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.idmint.server.Server;
import io.idmint.server.harness.Cli;
import io.idmint.server.harness.TestServers;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RegistryCommandTest {

    @TempDir
    Path data;

    @Test
    void list_showsTheWorkersNextUsed_freeAfterwards() {
        assertThat(Cli.run("next", "-n", "5", "--data-dir", data.toString(), "--worker", "3")
                .exitCode()).isZero();
        Cli.Result r = Cli.run("registry", "list", "--data-dir", data.toString());
        assertThat(r.exitCode()).as(r.err()).isZero();
        assertThat(r.lines()).hasSize(2);
        assertThat(r.lines().get(1)).startsWith("0          3      ").contains("(free)");
        Cli.Result json = Cli.run("registry", "list", "--json", "--data-dir", data.toString());
        assertThat(json.out()).contains("\"worker_id\":3").contains("\"holder\":\"\"");
    }

    @Test
    void listJson_leaseHeldWhileTheProcessLives_isNullNotASentinel() {
        try (Server server = TestServers.start(data)) {
            Cli.Result r = Cli.run("registry", "list", "--json", "--data-dir", data.toString());

            assertThat(r.exitCode()).as(r.err()).isZero();
            assertThat(r.out()).contains("\"worker_id\":0,").contains("\"lease_expires_ms\":null")
                    .doesNotContain(Long.toString(Long.MAX_VALUE));
            assertThat(Cli.run("registry", "list", "--data-dir", data.toString()).out())
                    .contains("while the process lives");
        }
    }

    @Test
    void init_onAnEmptyDirectory_saysReady() {
        Cli.Result r = Cli.run("registry", "init", "--data-dir", data.toString());
        assertThat(r.exitCode()).as(r.err()).isZero();
        assertThat(r.err()).contains("is ready").contains("0 worker(s)");
    }

    @Test
    void unknownAction_orRegistry_exit2NamingIt() {
        Cli.Result r = Cli.run("registry", "drop", "--data-dir", data.toString());
        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.err()).contains("'drop'");
        Cli.Result s = Cli.run("registry", "list", "--registry", "nope://x");
        assertThat(s.exitCode()).isEqualTo(2);
        assertThat(s.err()).contains("no backend for scheme 'nope'");
    }
}

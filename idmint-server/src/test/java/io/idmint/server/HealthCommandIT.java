package io.idmint.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code idmint health} against a server bound to one address that is not 127.0.0.1. */
class HealthCommandIT {

    @TempDir
    Path tmp;

    @Test
    void health_serverBoundToOneAddress_asksThatAddress() {
        try (Server server = TestServers.start(tmp, "bind=127.0.0.2")) {
            String port = Integer.toString(server.httpPort());

            Cli.Result r = Cli.run("health", "--bind", "127.0.0.2", "--http-port", port);

            assertThat(r.exitCode()).as(r.err()).isEqualTo(Main.OK);
            assertThat(r.out()).startsWith("http://127.0.0.2:" + port + "/health/ready 200");
        }
    }
}

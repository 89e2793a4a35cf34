package io.idmint.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.idmint.server.harness.Cli;
import io.idmint.server.harness.TestServers;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code idmint health} against a server bound to one address that is not 127.0.0.1. */
class HealthCommandIT {

    @TempDir
    Path tmp;

    @Test
    void health_serverBoundToOneAddress_asksThatAddress() throws Exception {
        try (Server server = TestServers.start(tmp, "bind=127.0.0.2")) {
            String port = Integer.toString(server.httpPort());
            // The first request to a fresh server loads its classes; on a loaded machine it
            // once outlasted the command's 2 s timeout, which is for a warm server.
            HttpRequest live = HttpRequest.newBuilder(URI.create("http://127.0.0.2:" + port
                    + "/health/live")).timeout(Duration.ofSeconds(30)).build();
            HttpResponse<Void> first = HttpClient.newHttpClient().send(live,
                    HttpResponse.BodyHandlers.discarding());
            assertThat(first.statusCode()).isEqualTo(200);

            Cli.Result r = Cli.run("health", "--bind", "127.0.0.2", "--http-port", port);

            assertThat(r.exitCode()).as(r.err()).isEqualTo(Main.OK);
            assertThat(r.out()).startsWith("http://127.0.0.2:" + port + "/health/ready 200");
        }
    }
}

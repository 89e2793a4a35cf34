package io.idmint.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.idmint.server.harness.Http;
import io.idmint.server.harness.TestServers;
import io.idmint.server.http.Route;
import io.idmint.server.ops.Metrics;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The scrape of a server that answered every route once: small enough to scrape often (under
 * 60 KB; it was 174 KB with a percentile histogram per route), and with the JVM, process and
 * build series beside the server's own (docs/observability.md).
 */
class MetricsScrapeIT {

    /** The ceiling docs/observability.md promises for a fresh server. */
    private static final int MAX_SCRAPE_BYTES = 60 * 1024;

    @TempDir
    static Path data;

    private static Server server;
    private static String scrape;

    @BeforeAll
    static void start() {
        server = TestServers.start(data);
        Http http = new Http(server.httpPort());
        for (Route route : Route.values()) {
            String path = route.label().replaceAll("\\{[a-z]+}", "x");
            if (path.startsWith("/")) {
                http.get(path);
            }
        }
        http.get("/not-a-route");
        scrape = http.get("/metrics").body();
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
    }

    @Test
    void scrape_afterEveryRoute_isUnder60KB() {
        int bytes = scrape.getBytes(StandardCharsets.UTF_8).length;

        assertThat(bytes).as("scrape size in bytes").isLessThan(MAX_SCRAPE_BYTES);
        for (Route route : Route.values()) {
            assertThat(scrape).as("the duration of %s", route.label())
                    .contains("idmint_http_request_duration_seconds_count{route=\""
                            + route.label() + "\"}");
        }
    }

    @Test
    void scrape_durations_haveTheFewSloBuckets() {
        long buckets = scrape.lines()
                .filter(l -> l.startsWith("idmint_http_request_duration_seconds_bucket{")
                        && l.contains("route=\"/v1/id\""))
                .count();

        assertThat(buckets).as("buckets of /v1/id, +Inf included")
                .isEqualTo(Metrics.SLO_BUCKETS.length + 1);
    }

    @Test
    void scrape_hasBuildInfoJvmAndProcessSeries() {
        assertThat(scrape).containsPattern(Pattern.compile("(?m)^idmint_build_info\\{"
                + "commit=\"[^\"]+\",java_version=\"" + Pattern.quote(
                        System.getProperty("java.version")) + "\",layout=\"snowflake\","
                + "version=\"[^\"]+\"} 1(\\.0)?$"));
        for (String series : new String[] {"jvm_memory_used_bytes{", "jvm_gc_live_data_size_bytes ",
            "jvm_threads_live_threads ", "jvm_classes_loaded_classes ", "process_cpu_usage ",
            "process_files_open_files ", "process_uptime_seconds ", "system_cpu_count "}) {
            assertThat(scrape).as(series).contains("\n" + series);
        }
    }
}

package io.idmint.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.idmint.IdGenerator;
import io.idmint.testkit.EtcdCluster;
import io.idmint.testkit.IdOracle;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A Spring Boot web application with Actuator and the starter, its registry on a real etcd:
 * health follows the lease, meters are published, and two instances never share a worker.
 */
class IdmintActuatorIT {

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class App {
    }

    private static EtcdCluster etcd;
    private final HttpClient http = HttpClient.newHttpClient();

    @TempDir
    Path dir;

    @BeforeAll
    static void startEtcd() {
        etcd = EtcdCluster.single();
    }

    @AfterAll
    static void stopEtcd() {
        etcd.close();
    }

    private ConfigurableApplicationContext start(String namespace) {
        return new SpringApplicationBuilder(App.class).properties(
                "server.port=0",
                "spring.main.banner-mode=off",
                "management.endpoints.web.exposure.include=health,metrics",
                "management.endpoint.health.show-details=always",
                // Short enough that the health test sees DOWN in seconds; long enough that a
                // loaded machine's slow etcd answer (once 2.7 s) does not lose the lease.
                "idmint.registry=etcd://" + etcd.endpoints() + "/it?timeout=1s",
                "idmint.namespace=" + namespace,
                "idmint.data-dir=" + dir,
                "idmint.lease.ttl=6s",
                "idmint.lease.keepalive=1s",
                "idmint.lease.store-timeout=4s",
                "idmint.lease.reservation=3s").run();
    }

    @Test
    void health_downWhenTheRegistryIsGonePastTheRunway_upAfter() throws Exception {
        try (ConfigurableApplicationContext app = start("health")) {
            String base = "http://127.0.0.1:" + app.getEnvironment()
                    .getProperty("local.server.port");
            HttpResponse<String> up = get(base + "/actuator/health");
            assertThat(up.statusCode()).as(up.body()).isEqualTo(200);
            assertThat(idmint(up.body())).contains("\"status\":\"UP\"")
                    .contains("\"state\":\"ACTIVE\"").contains("\"runwayMillis\":")
                    .contains("\"clockOffsetMillis\":");
            assertThat(get(base + "/actuator/metrics/idmint.runway").statusCode())
                    .isEqualTo(200);
            assertThat(get(base + "/actuator/metrics/idmint.lease.state").body())
                    .contains("ACTIVE");

            etcd.stopAll();
            try {
                HttpResponse<String> down = await(base + "/actuator/health",
                        r -> r.statusCode() == 503, Duration.ofSeconds(30));
                // DEGRADED with no runway left, or LOST: either way no ID can be issued.
                assertThat(idmint(down.body())).contains("\"status\":\"DOWN\"")
                        .contains("\"runwayMillis\":0,");
            } finally {
                etcd.restartAll();
            }
            HttpResponse<String> back = await(base + "/actuator/health",
                    r -> r.statusCode() == 200, Duration.ofSeconds(60));
            assertThat(idmint(back.body())).contains("\"status\":\"UP\"")
                    .contains("\"state\":\"ACTIVE\"");
            app.getBean(IdGenerator.class).nextId();
        }
    }

    @Test
    void twoInstances_onOneEtcd_leaseDifferentWorkers_noDuplicates() throws Exception {
        try (ConfigurableApplicationContext a = start("pair");
             ConfigurableApplicationContext b = start("pair")) {
            IdGenerator ida = a.getBean(IdGenerator.class);
            IdGenerator idb = b.getBean(IdGenerator.class);
            assertThat(ida.status().workerId()).isNotEqualTo(idb.status().workerId());
            long[][] fromA = IdOracle.mintConcurrently(ida, 4, 10_000);
            long[][] fromB = IdOracle.mintConcurrently(idb, 4, 10_000);
            long[][] all = new long[8][];
            System.arraycopy(fromA, 0, all, 0, 4);
            System.arraycopy(fromB, 0, all, 4, 4);
            IdOracle.assertUnique(all);
            assertThat(ida.layout().decode(fromA[0][0]).workerId())
                    .isEqualTo(ida.status().workerId());
        }
    }

    /**
     * The idmint component of a health answer, whatever the key order (Boot 3 writes status
     * first, Boot 4 sorts): up to the brace that closes its details and the one that closes it.
     */
    private static String idmint(String health) {
        int start = health.indexOf("\"idmint\":{");
        assertThat(start).as(health).isNotNegative();
        int end = health.indexOf('}', health.indexOf('}', start) + 1);
        return health.substring(start, end + 1);
    }

    private HttpResponse<String> get(String url) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(url)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** Polls {@code url} until the answer satisfies {@code done}. */
    private HttpResponse<String> await(String url, Predicate<HttpResponse<String>> done,
            Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        HttpResponse<String> r = get(url);
        while (!done.test(r)) {
            assertThat(System.nanoTime()).as("%s still answers %d %s", url, r.statusCode(),
                    r.body()).isLessThan(deadline);
            Thread.sleep(100);
            r = get(url);
        }
        return r;
    }
}

package io.idmint.server.ops;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import javax.management.NotificationEmitter;
import javax.management.NotificationListener;
import org.junit.jupiter.api.Test;

/**
 * {@link Metrics#close()}: a closed server's meters stop listening to the JVM;
 * {@link Metrics#refusedTotal()}: what counts as a refused call.
 */
class MetricsTest {

    private static final Map<String, String> BUILD = Map.of("version", "test", "commit", "test",
            "java_version", "17", "layout", "snowflake");

    @Test
    void refusedTotal_countsNotNowAnswersOfBothTransports_notProbesOrCallerMistakes() {
        try (Metrics m = new Metrics(BUILD)) {
            m.bindHttpRoutes(List.of("/api/v1/ids", "/health/ready"));
            m.request(0, 200, 1);
            m.request(0, 400, 1);
            m.request(0, 401, 1);
            m.request(1, 503, 1);
            assertThat(m.refusedTotal()).as("no refusal yet").isZero();

            m.request(0, 429, 1);
            m.request(0, 503, 1);
            m.grpcCall("NextIds", io.grpc.Status.Code.RESOURCE_EXHAUSTED);
            m.grpcCall("NextIds", io.grpc.Status.Code.UNAVAILABLE);
            m.grpcCall("NextIds", io.grpc.Status.Code.INVALID_ARGUMENT);
            m.grpcCall("NextIds", io.grpc.Status.Code.OK);
            assertThat(m.refusedTotal()).isEqualTo(4);
        }
    }

    @Test
    void close_afterAScrape_stopsListeningToGarbageCollections() throws Exception {
        Metrics open = new Metrics(BUILD);
        Metrics closed = new Metrics(BUILD);
        open.scrape();
        closed.scrape();
        closed.close();
        double openBefore = gcPauses(open);
        double closedBefore = gcPauses(closed);

        // Listeners hear a collection in the order they were added: once this one has heard it,
        // so has every listener the two registries added before.
        CountDownLatch heard = new CountDownLatch(1);
        NotificationListener last = (n, h) -> heard.countDown();
        List<NotificationEmitter> emitters = ManagementFactory.getGarbageCollectorMXBeans()
                .stream().map(NotificationEmitter.class::cast).toList();
        emitters.forEach(e -> e.addNotificationListener(last, null, null));
        try {
            System.gc();
            assertThat(heard.await(30, TimeUnit.SECONDS)).as("a collection was notified")
                    .isTrue();
        } finally {
            for (NotificationEmitter e : emitters) {
                e.removeNotificationListener(last);
            }
        }

        try {
            assertThat(gcPauses(open)).as("the open registry counted it")
                    .isGreaterThan(openBefore);
            assertThat(gcPauses(closed)).as("the closed one no longer listens")
                    .isEqualTo(closedBefore);
        } finally {
            open.close();
        }
    }

    /** The sum of jvm_gc_pause_seconds_count over its label sets. */
    private static double gcPauses(Metrics m) {
        return m.scrape().lines().filter(l -> l.startsWith("jvm_gc_pause_seconds_count"))
                .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)))
                .sum();
    }
}

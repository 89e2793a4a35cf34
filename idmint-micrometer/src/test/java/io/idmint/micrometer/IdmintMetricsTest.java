package io.idmint.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idmint.IdGenerator;
import io.idmint.Layout;
import io.idmint.Snowflake;
import io.idmint.WorkerRegistries;
import io.idmint.segment.SegmentGenerator;
import io.idmint.segment.Segments;
import io.idmint.spi.WorkerRegistry;
import io.idmint.testkit.InMemoryRangeStore;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class IdmintMetricsTest {

    @TempDir
    Path dir;

    private final MeterRegistry registry = new SimpleMeterRegistry();

    @Test
    void bindTo_generator_reportsLeaseStateWorkerAndRunway() {
        try (WorkerRegistry workers = WorkerRegistries.local(dir)) {
            IdGenerator ids = Snowflake.newBuilder().registry(workers).preferredWorkerId(7)
                    .build();
            IdmintMetrics.bindTo(registry, ids);

            assertThat(gauge("idmint.lease.state", "state", "ACTIVE")).isEqualTo(1);
            assertThat(gauge("idmint.lease.state", "state", "LOST")).isEqualTo(0);
            assertThat(registry.get("idmint.worker.id").tag("stripe", "0").gauge().value())
                    .isEqualTo(7);
            assertThat(registry.get("idmint.runway").gauge().value()).isPositive();
            assertThat(registry.get("idmint.clock.offset").gauge().value()).isNotNaN();

            ids.close();
            assertThat(gauge("idmint.lease.state", "state", "RELEASED")).isEqualTo(1);
            assertThat(gauge("idmint.lease.state", "state", "ACTIVE")).isEqualTo(0);
            assertThat(registry.get("idmint.runway").gauge().value()).isZero();
        }
    }

    @Test
    void listener_countsSequenceWaits() {
        // One ID per millisecond: the second call in a tick must wait for the next.
        Layout tiny = Layout.parse("time=41,worker=10,sequence=0");
        try (WorkerRegistry workers = WorkerRegistries.local(dir)) {
            IdmintMetrics metrics = IdmintMetrics.bindTo(registry);
            try (IdGenerator ids = Snowflake.newBuilder().registry(workers).layout(tiny)
                    .listener(metrics).build()) {
                metrics.generator(ids::status);
                for (int i = 0; i < 50; i++) {
                    ids.nextId();
                }
            }
            assertThat(registry.get("idmint.sequence.waits").counter().count()).isPositive();
            assertThat(registry.get("idmint.clock.behind").counter().count()).isZero();
        }
    }

    @Test
    void issued_countsWhatTheCallerReports() {
        IdmintMetrics metrics = IdmintMetrics.bindTo(registry);
        metrics.issued(3);
        metrics.issued(4);
        assertThat(metrics.issuedTotal()).isEqualTo(7);
        assertThat(registry.get("idmint.ids.issued").counter().count()).isEqualTo(7);
    }

    @Test
    void refresh_segmentTags_appearAndReportServed() {
        InMemoryRangeStore store = new InMemoryRangeStore();
        try (SegmentGenerator segments = Segments.newBuilder().store(store).autoCreate(true)
                .build()) {
            IdmintMetrics metrics = IdmintMetrics.bindTo(registry).segments(segments::stats);
            assertThat(registry.find("idmint.segment.ids.served").meters()).isEmpty();

            for (int i = 0; i < 25; i++) {
                segments.next("order");
            }
            segments.next("user");
            metrics.refresh();

            assertThat(registry.get("idmint.segment.ids.served").tag("tag", "order")
                    .functionCounter().count()).isEqualTo(25);
            assertThat(registry.get("idmint.segment.ids.served").tag("tag", "user")
                    .functionCounter().count()).isEqualTo(1);
            assertThat(registry.get("idmint.segment.ranges.fetched").tag("tag", "order")
                    .functionCounter().count()).isPositive();
            assertThat(registry.get("idmint.segment.fetch").tag("tag", "order")
                    .functionTimer().count()).isPositive();
        }
    }

    @Test
    void scrape_readsTheStatusOncePerScrape() {
        List<Integer> reads = new ArrayList<>();
        try (WorkerRegistry workers = WorkerRegistries.local(dir);
             IdGenerator ids = Snowflake.newBuilder().registry(workers).workers(2).build()) {
            IdmintMetrics metrics = IdmintMetrics.bindTo(registry).generator(() -> {
                reads.add(1);
                return ids.status();
            });
            reads.clear();
            int meters = metrics.scrape(() -> {
                registry.getMeters().forEach(m -> m.measure().forEach(x -> { }));
                return registry.getMeters().size();
            });
            assertThat(meters).isGreaterThan(20);
            assertThat(reads).hasSize(1);
        }
    }

    @Test
    void generator_boundTwice_isRefused() {
        try (WorkerRegistry workers = WorkerRegistries.local(dir);
             IdGenerator ids = Snowflake.newBuilder().registry(workers).build()) {
            IdmintMetrics metrics = IdmintMetrics.bindTo(registry, ids);
            assertThatThrownBy(() -> metrics.generator(ids::status))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("bound to these metrics already");
        }
    }

    private double gauge(String name, String key, String value) {
        return registry.get(name).tag(key, value).gauge().value();
    }
}

package io.idmint.spring;

import io.idmint.GeneratorListener;
import io.idmint.IdGenerator;
import io.idmint.micrometer.IdmintMetrics;
import io.idmint.segment.SegmentGenerator;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.ObjectProvider;

/**
 * Binds {@link IdmintMetrics} to the registries Spring Boot hands every {@link MeterBinder}, and
 * is the generator's listener: the generator is built before any registry exists, so its events
 * are passed on to the metrics bound since. With a segment generator, a daemon thread registers
 * the meters of segment tags as they come into use, every {@code segmentRefresh} (a registry
 * has no hook before its scrape, where the server does it).
 */
public class IdmintMeterBinder implements MeterBinder, GeneratorListener, DisposableBean {

    private final ObjectProvider<IdGenerator> ids;
    private final ObjectProvider<SegmentGenerator> segments;
    private final Duration segmentRefresh;
    private final List<IdmintMetrics> bound = new CopyOnWriteArrayList<>();
    // guarded by this
    private ScheduledExecutorService refresher;

    IdmintMeterBinder(ObjectProvider<IdGenerator> ids, ObjectProvider<SegmentGenerator> segments,
            Duration segmentRefresh) {
        this.ids = ids;
        this.segments = segments;
        this.segmentRefresh = segmentRefresh;
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        IdmintMetrics metrics = IdmintMetrics.bindTo(registry);
        IdGenerator generator = ids.getIfUnique();
        if (generator != null) {
            metrics.generator(generator::status);
        }
        SegmentGenerator segmentGenerator = segments.getIfUnique();
        if (segmentGenerator != null) {
            metrics.segments(segmentGenerator::stats);
            startRefresher();
        }
        bound.add(metrics);
    }

    private synchronized void startRefresher() {
        if (refresher == null) {
            refresher = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "idmint-segment-meters");
                t.setDaemon(true);
                return t;
            });
            long ms = segmentRefresh.toMillis();
            refresher.scheduleWithFixedDelay(this::refresh, ms, ms, TimeUnit.MILLISECONDS);
        }
    }

    /** Registers the meters of segment tags used since the last call (see IdmintMetrics). */
    public void refresh() {
        bound.forEach(IdmintMetrics::refresh);
    }

    @Override
    public synchronized void destroy() {
        if (refresher != null) {
            refresher.shutdownNow();
        }
    }

    @Override
    public void onSequenceWait() {
        bound.forEach(IdmintMetrics::onSequenceWait);
    }

    @Override
    public void onClockBehind(long behindMillis) {
        bound.forEach(m -> m.onClockBehind(behindMillis));
    }
}

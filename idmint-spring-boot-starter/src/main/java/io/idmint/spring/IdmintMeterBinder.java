package io.idmint.spring;

import io.idmint.GeneratorListener;
import io.idmint.IdGenerator;
import io.idmint.SegmentGenerator;
import io.idmint.micrometer.IdmintMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.springframework.beans.factory.ObjectProvider;

/**
 * Binds {@link IdmintMetrics} to the registries Spring Boot hands every {@link MeterBinder}, and
 * is the generator's listener: the generator is built before any registry exists, so its events
 * are passed on to the metrics bound since.
 */
public class IdmintMeterBinder implements MeterBinder, GeneratorListener {

    private final ObjectProvider<IdGenerator> ids;
    private final ObjectProvider<SegmentGenerator> segments;
    private final List<IdmintMetrics> bound = new CopyOnWriteArrayList<>();

    IdmintMeterBinder(ObjectProvider<IdGenerator> ids, ObjectProvider<SegmentGenerator> segments) {
        this.ids = ids;
        this.segments = segments;
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
        }
        bound.add(metrics);
    }

    /** Registers the meters of segment tags used since the last call (see IdmintMetrics). */
    public void refresh() {
        bound.forEach(IdmintMetrics::refresh);
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

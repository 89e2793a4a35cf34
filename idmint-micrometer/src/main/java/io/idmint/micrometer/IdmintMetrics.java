package io.idmint.micrometer;

import io.idmint.GeneratorListener;
import io.idmint.GeneratorStatus;
import io.idmint.IdGenerator;
import io.idmint.LeaseState;
import io.idmint.segment.SegmentStats;
import io.idmint.segment.SerialStats;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * idmint's meters on a Micrometer {@link MeterRegistry}: the one definition of every generator
 * and segment meter, which the idmint server exposes at {@code /metrics} and a library user
 * binds to any registry. Names as Prometheus writes them:
 *
 * <ul>
 * <li>{@code idmint_ids_issued_total}: IDs issued (counted by whoever calls
 *     {@link #issued(long)});
 * <li>{@code idmint_sequence_waits_total}, {@code idmint_clock_behind_total}: generator events,
 *     counted when this object is the generator's {@link GeneratorListener};
 * <li>{@code idmint_lease_state{state}}: 1 for the current lease state, 0 for the others;
 * <li>{@code idmint_runway_seconds}, {@code idmint_clock_offset_seconds},
 *     {@code idmint_clock_fleet_skew_seconds}: from the status;
 * <li>{@code idmint_worker_id{stripe}}, {@code idmint_worker_lease_state{stripe,state}},
 *     {@code idmint_worker_runway_seconds{stripe}}: each leased worker (one stripe per worker
 *     with {@code workers} above 1); the worker ID is -1 while the stripe holds none;
 * <li>per segment tag ({@code tag} label): {@code idmint_segment_ids_served_total},
 *     {@code idmint_segment_ranges_fetched_total}, {@code idmint_segment_fetch_failures_total},
 *     {@code idmint_segment_step}, {@code idmint_segment_remaining},
 *     {@code idmint_segment_next_ready} (0 or 1) and {@code idmint_segment_fetch_seconds_count}
 *     / {@code _sum}. Tags appear at run time: their meters are registered by
 *     {@link #refresh()} (and {@link #scrape(Supplier)}) when it first sees them, and removed
 *     when the generator drops a tag.
 * <li>per serial ({@code serial} label, {@link #serials}): {@code
 *     idmint_serial_values_issued_total}, {@code idmint_serial_values_dropped_total},
 *     {@code idmint_serial_ranges_total}, {@code idmint_serial_held}.
 * </ul>
 *
 * <pre>{@code
 * IdmintMetrics metrics = IdmintMetrics.bindTo(registry);
 * IdGenerator ids = Snowflake.newBuilder().registry(workers).listener(metrics).build();
 * metrics.generator(ids::status).segments(segments::stats);
 * }</pre>
 */
public final class IdmintMetrics implements GeneratorListener {

    private final MeterRegistry registry;
    private final Counter issued;
    private final Counter sequenceWaits;
    private final Counter clockBehind;
    private volatile Supplier<GeneratorStatus> source;
    /** The status for the scrape in progress (scrapes are serialised), else null. */
    private volatile GeneratorStatus scraped;
    private volatile Supplier<List<SegmentStats>> segments;
    /** The statistics the segment meters read: refreshed by {@link #refresh()}. */
    private final Map<String, SegmentStats> segmentStats = new ConcurrentHashMap<>();
    // guarded by this
    private final Map<String, List<Meter>> segmentMeters = new HashMap<>();
    private volatile Supplier<List<SerialStats>> serials;
    /** The statistics the serial meters read: refreshed by {@link #refresh()}. */
    private final Map<String, SerialStats> serialStats = new ConcurrentHashMap<>();
    private final Map<String, List<Meter>> serialMeters = new HashMap<>();

    private IdmintMetrics(MeterRegistry registry) {
        this.registry = registry;
        issued = Counter.builder("idmint.ids.issued").description("IDs issued").register(registry);
        sequenceWaits = Counter.builder("idmint.sequence.waits")
                .description("waits for the next tick because a tick's sequence ran out")
                .register(registry);
        clockBehind = Counter.builder("idmint.clock.behind")
                .description("times the clock was found behind the last issued ID")
                .register(registry);
    }

    /**
     * Registers the event counters on {@code registry}; pass the result to the generator's
     * builder as its listener, then bind the generator's status with {@link #generator}.
     */
    public static IdmintMetrics bindTo(MeterRegistry registry) {
        return new IdmintMetrics(Objects.requireNonNull(registry, "registry"));
    }

    /** As {@link #bindTo(MeterRegistry)}, with the gauges of {@code ids}' status bound. */
    public static IdmintMetrics bindTo(MeterRegistry registry, IdGenerator ids) {
        Objects.requireNonNull(ids, "ids");
        return bindTo(registry).generator(ids::status);
    }

    /**
     * Adds the gauges that read a generator's status: lease state, runway, clock offset and one
     * set per worker (the stripes are counted from the status read now).
     *
     * @throws IllegalStateException when a generator is bound already
     */
    public synchronized IdmintMetrics generator(Supplier<GeneratorStatus> status) {
        Objects.requireNonNull(status, "status");
        if (source != null) {
            throw new IllegalStateException("a generator is bound to these metrics already");
        }
        source = status;
        // Held strongly: nothing else keeps this binder, and a weakly held one reads NaN after
        // the next collection (CI17: idmint.lease.state NaN in IdmintMetricsTest).
        for (LeaseState s : LeaseState.values()) {
            Gauge.builder("idmint.lease.state", this, m -> m.snapshot().state() == s ? 1 : 0)
                    .description("1 for the worker lease's current state, 0 for the others")
                    .tag("state", s.name())
                    .strongReference(true).register(registry);
        }
        Gauge.builder("idmint.runway", this, m -> m.snapshot().runwayMillis() / 1000.0)
                .description("how long IDs can still be issued without a renewal")
                .baseUnit("seconds").strongReference(true).register(registry);
        Gauge.builder("idmint.clock.offset", this, m -> m.snapshot().clockOffsetMillis() / 1000.0)
                .description("the wall clock minus the generator's clock")
                .baseUnit("seconds").strongReference(true).register(registry);
        Gauge.builder("idmint.clock.fleet.skew", this,
                        m -> m.snapshot().fleetSkewMillis() / 1000.0)
                .description("this node's clock minus the fleet's at the last fleet clock "
                        + "check; 0 within the fleet's bounds")
                .baseUnit("seconds").strongReference(true).register(registry);
        int stripes = status.get().workers().size();
        for (int i = 0; i < stripes; i++) {
            int stripe = i;
            String tag = Integer.toString(i);
            Gauge.builder("idmint.worker.id", this, m -> m.worker(stripe).workerId())
                    .description("the worker ID a stripe holds; -1 while it holds none")
                    .tag("stripe", tag).strongReference(true).register(registry);
            for (LeaseState s : LeaseState.values()) {
                Gauge.builder("idmint.worker.lease.state", this,
                                m -> m.worker(stripe).state() == s ? 1 : 0)
                        .description("1 for a stripe's current lease state, 0 for the others")
                        .tag("stripe", tag).tag("state", s.name())
                        .strongReference(true).register(registry);
            }
            Gauge.builder("idmint.worker.runway", this,
                            m -> m.worker(stripe).runwayMillis() / 1000.0)
                    .description("how long a stripe can still issue without a renewal")
                    .tag("stripe", tag).baseUnit("seconds")
                    .strongReference(true).register(registry);
        }
        return this;
    }

    /**
     * Reads each segment tag's statistics from {@code stats} at every {@link #refresh()}.
     *
     * @throws IllegalStateException when segments are bound already
     */
    public synchronized IdmintMetrics segments(Supplier<List<SegmentStats>> stats) {
        Objects.requireNonNull(stats, "stats");
        if (segments != null) {
            throw new IllegalStateException("segments are bound to these metrics already");
        }
        segments = stats;
        refresh();
        return this;
    }

    /**
     * Reads each serial's statistics from {@code stats} at every {@link #refresh()}: {@code
     * idmint_serial_values_issued_total}, {@code idmint_serial_values_dropped_total} (the rest
     * of a range whose period ended), {@code idmint_serial_ranges_total} and {@code
     * idmint_serial_held} (values held for the current period), by {@code serial}.
     *
     * @throws IllegalStateException when serials are bound already
     */
    public synchronized IdmintMetrics serials(Supplier<List<SerialStats>> stats) {
        Objects.requireNonNull(stats, "stats");
        if (serials != null) {
            throw new IllegalStateException("serials are bound to these metrics already");
        }
        serials = stats;
        refresh();
        return this;
    }

    /** Counts {@code n} issued IDs. */
    public void issued(long n) {
        issued.increment(n);
    }

    /** The IDs counted by {@link #issued(long)} so far. */
    public long issuedTotal() {
        return (long) issued.count();
    }

    /**
     * Reads the segment statistics once: registers the meters of tags seen for the first time,
     * removes those of tags the generator dropped, and updates what the others report. Call it
     * before each publication (a push registry: on its step; {@link #scrape} does it).
     */
    public synchronized void refresh() {
        Supplier<List<SerialStats>> serialSource = serials;
        if (serialSource != null) {
            for (SerialStats s : serialSource.get()) {
                serialStats.put(s.serial(), s);
                serialMeters.computeIfAbsent(s.serial(), this::serialMeters);
            }
        }
        Supplier<List<SegmentStats>> stats = segments;
        if (stats == null) {
            return;
        }
        Set<String> seen = new HashSet<>();
        for (SegmentStats s : stats.get()) {
            seen.add(s.tag());
            segmentStats.put(s.tag(), s);
            segmentMeters.computeIfAbsent(s.tag(), this::segmentMeters);
        }
        segmentMeters.entrySet().removeIf(e -> {
            if (seen.contains(e.getKey())) {
                return false;
            }
            e.getValue().forEach(registry::remove);
            segmentStats.remove(e.getKey());
            return true;
        });
    }

    /**
     * Runs {@code exporter} (a registry's scrape) with every meter answering from one reading:
     * the segments are refreshed and the generator's status is read once for all its gauges.
     */
    public synchronized <T> T scrape(Supplier<T> exporter) {
        refresh();
        Supplier<GeneratorStatus> s = source;
        scraped = s == null ? null : s.get();
        try {
            return exporter.get();
        } finally {
            scraped = null;
        }
    }

    @Override
    public void onSequenceWait() {
        sequenceWaits.increment();
    }

    @Override
    public void onClockBehind(long behindMillis) {
        clockBehind.increment();
    }

    /** The status read for the scrape in progress, or a fresh one outside a scrape. */
    private GeneratorStatus snapshot() {
        GeneratorStatus s = scraped;
        return s != null ? s : source.get();
    }

    private GeneratorStatus.Worker worker(int stripe) {
        return snapshot().workers().get(stripe);
    }

    /** A tag's statistics; zeros for one whose meters a concurrent refresh is removing. */
    private static SegmentStats stat(Map<String, SegmentStats> stats, String tag) {
        SegmentStats s = stats.get(tag);
        return s != null ? s : new SegmentStats(tag, 0, 0, 0, 0, 0, 0, false);
    }

    private List<Meter> serialMeters(String serial) {
        Map<String, SerialStats> m = serialStats;
        java.util.function.Function<Map<String, SerialStats>, SerialStats> of = stats -> {
            SerialStats s = stats.get(serial);
            return s != null ? s : new SerialStats(serial, null, 0, 0, 0, 0);
        };
        return List.of(
                FunctionCounter.builder("idmint.serial.values.issued", m,
                                s -> of.apply(s).issued())
                        .description("serial values issued, by serial").tag("serial", serial)
                        .register(registry),
                FunctionCounter.builder("idmint.serial.values.dropped", m,
                                s -> of.apply(s).dropped())
                        .description("serial values dropped unissued: the rest of a range "
                                + "whose period ended").tag("serial", serial)
                        .register(registry),
                FunctionCounter.builder("idmint.serial.ranges", m, s -> of.apply(s).ranges())
                        .description("ranges of serial values taken from the segment store")
                        .tag("serial", serial).register(registry),
                Gauge.builder("idmint.serial.held", m, s -> of.apply(s).buffered())
                        .description("serial values held for the current period")
                        .tag("serial", serial).register(registry));
    }

    private List<Meter> segmentMeters(String tag) {
        Map<String, SegmentStats> m = segmentStats;
        return List.of(
                FunctionCounter.builder("idmint.segment.ids.served", m,
                                s -> stat(s, tag).served())
                        .description("segment IDs served, by tag").tag("tag", tag)
                        .register(registry),
                FunctionCounter.builder("idmint.segment.ranges.fetched", m,
                                s -> stat(s, tag).ranges())
                        .description("ranges fetched from the segment store").tag("tag", tag)
                        .register(registry),
                FunctionCounter.builder("idmint.segment.fetch.failures", m,
                                s -> stat(s, tag).fetchFailures())
                        .description("range fetches that failed (store unavailable, unknown tag)")
                        .tag("tag", tag).register(registry),
                Gauge.builder("idmint.segment.step", m, s -> stat(s, tag).step())
                        .description("the size of the last range fetched").tag("tag", tag)
                        .register(registry),
                Gauge.builder("idmint.segment.remaining", m, s -> stat(s, tag).remaining())
                        .description("IDs left in the range being served").tag("tag", tag)
                        .register(registry),
                Gauge.builder("idmint.segment.next.ready", m,
                                s -> stat(s, tag).nextReady() ? 1 : 0)
                        .description("1 when the next range is fetched already (the second "
                                + "buffer is full)").tag("tag", tag).register(registry),
                FunctionTimer.builder("idmint.segment.fetch", m, s -> stat(s, tag).ranges(),
                                s -> stat(s, tag).fetchNanos(), TimeUnit.NANOSECONDS)
                        .description("successful range fetches and the time they took")
                        .tag("tag", tag).register(registry));
    }
}

package io.idmint.server;

import io.idmint.GeneratorListener;
import io.idmint.GeneratorStatus;
import io.idmint.LeaseState;
import io.idmint.segment.SegmentStats;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Supplier;

/**
 * The server's metrics, in Prometheus text at {@code /metrics}. It is also the generator's
 * listener, so sequence waits and clock faults are counted where they happen. Every update on
 * the request path is a lookup in a prebuilt array and an adder: no strings, no maps.
 *
 * <ul>
 * <li>{@code idmint_ids_issued_total}: IDs issued, by every transport;
 * <li>{@code idmint_http_requests_total{route,status}}: HTTP requests by path template;
 * <li>{@code idmint_http_request_duration_seconds{route}}: time to answer, a histogram;
 * <li>{@code idmint_sequence_waits_total}, {@code idmint_clock_behind_total}: generator events;
 * <li>{@code idmint_lease_state{state}}: 1 for the current lease state, 0 for the others;
 * <li>{@code idmint_runway_seconds}, {@code idmint_clock_offset_seconds}: from the status;
 * <li>per segment tag ({@code tag} label), from the segment generator's statistics:
 *     {@code idmint_segment_ids_served_total}, {@code idmint_segment_ranges_fetched_total},
 *     {@code idmint_segment_fetch_failures_total}, {@code idmint_segment_step},
 *     {@code idmint_segment_remaining}, {@code idmint_segment_next_ready} (0 or 1) and
 *     {@code idmint_segment_fetch_seconds_count} / {@code _sum} (successful fetches and their
 *     time). Tags appear at run time, so their meters are registered at the scrape that first
 *     sees them, and removed when the generator drops a tag (one the store does not know).
 * <li>{@code idmint_worker_id{stripe}}, {@code idmint_worker_lease_state{stripe,state}},
 *     {@code idmint_worker_runway_seconds{stripe}}: each leased worker (one stripe per worker
 *     with {@code workers} above 1); the worker ID is -1 while the stripe holds none.
 * </ul>
 *
 * <p>A scrape reads the generator's status once, and every gauge answers from that snapshot.
 */
final class Metrics implements GeneratorListener {

    private static final int MIN_STATUS = 100;
    private static final int MAX_STATUS = 599;

    private final PrometheusMeterRegistry registry =
            new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final Counter issued;
    private final Counter sequenceWaits;
    private final Counter clockBehind;
    private final Timer[] durations = new Timer[Route.values().length];
    private final AtomicReferenceArray<Counter>[] requests;
    private volatile Supplier<List<SegmentStats>> segments = List::of;
    /** The statistics the segment meters read: refreshed at each scrape, before the meters. */
    private final Map<String, SegmentStats> segmentStats = new ConcurrentHashMap<>();
    // guarded by this
    private final Map<String, List<Meter>> segmentMeters = new HashMap<>();
    private volatile Supplier<GeneratorStatus> source;
    /** The status for the scrape in progress (scrapes are serialised), else null. */
    private volatile GeneratorStatus scraped;

    @SuppressWarnings("unchecked")
    Metrics() {
        issued = Counter.builder("idmint.ids.issued").description("IDs issued").register(registry);
        sequenceWaits = Counter.builder("idmint.sequence.waits")
                .description("waits for the next tick because a tick's sequence ran out")
                .register(registry);
        clockBehind = Counter.builder("idmint.clock.behind")
                .description("times the clock was found behind the last issued ID")
                .register(registry);
        requests = new AtomicReferenceArray[Route.values().length];
        for (Route r : Route.values()) {
            durations[r.ordinal()] = Timer.builder("idmint.http.request.duration")
                    .description("time from a request's head to its response, by route")
                    .tag("route", r.label())
                    .publishPercentileHistogram()
                    .minimumExpectedValue(Duration.ofNanos(10_000))
                    .maximumExpectedValue(Duration.ofSeconds(10))
                    .register(registry);
            requests[r.ordinal()] = new AtomicReferenceArray<>(MAX_STATUS - MIN_STATUS + 1);
        }
    }

    /** Adds the gauges that read the generator's status at each scrape. */
    void bind(Supplier<GeneratorStatus> source) {
        this.source = source;
        Supplier<GeneratorStatus> status = this::snapshot;
        for (LeaseState s : LeaseState.values()) {
            Gauge.builder("idmint.lease.state", () -> status.get().state() == s ? 1 : 0)
                    .description("1 for the worker lease's current state, 0 for the others")
                    .tag("state", s.name())
                    .register(registry);
        }
        Gauge.builder("idmint.runway", () -> status.get().runwayMillis() / 1000.0)
                .description("how long IDs can still be issued without a renewal")
                .baseUnit("seconds").register(registry);
        Gauge.builder("idmint.clock.offset", () -> status.get().clockOffsetMillis() / 1000.0)
                .description("the wall clock minus the generator's clock")
                .baseUnit("seconds").register(registry);
        int stripes = source.get().workers().size();
        for (int i = 0; i < stripes; i++) {
            int stripe = i;
            String tag = Integer.toString(i);
            Gauge.builder("idmint.worker.id", () -> worker(stripe).workerId())
                    .description("the worker ID a stripe holds; -1 while it holds none")
                    .tag("stripe", tag).register(registry);
            for (LeaseState s : LeaseState.values()) {
                Gauge.builder("idmint.worker.lease.state", () -> worker(stripe).state() == s
                                ? 1 : 0)
                        .description("1 for a stripe's current lease state, 0 for the others")
                        .tag("stripe", tag).tag("state", s.name()).register(registry);
            }
            Gauge.builder("idmint.worker.runway", () -> worker(stripe).runwayMillis() / 1000.0)
                    .description("how long a stripe can still issue without a renewal")
                    .tag("stripe", tag).baseUnit("seconds").register(registry);
        }
    }

    private GeneratorStatus.Worker worker(int stripe) {
        return snapshot().workers().get(stripe);
    }

    /** The status read for the scrape in progress, or a fresh one outside a scrape. */
    private GeneratorStatus snapshot() {
        GeneratorStatus s = scraped;
        return s != null ? s : source.get();
    }

    /** Adds the meters of each segment tag, read from {@code stats} at each scrape. */
    void bindSegments(Supplier<List<SegmentStats>> stats) {
        this.segments = stats;
    }

    /** Counts issued IDs; passed to {@link IdService}. */
    void issued(long n) {
        issued.increment(n);
    }

    long issuedTotal() {
        return (long) issued.count();
    }

    /** Counts one answered request and its duration. */
    void request(Route route, int status, long nanos) {
        durations[route.ordinal()].record(nanos, TimeUnit.NANOSECONDS);
        int s = Math.min(Math.max(status, MIN_STATUS), MAX_STATUS) - MIN_STATUS;
        AtomicReferenceArray<Counter> byStatus = requests[route.ordinal()];
        Counter c = byStatus.get(s);
        if (c == null) {
            c = Counter.builder("idmint.http.requests").description("HTTP requests answered")
                    .tag("route", route.label()).tag("status", Integer.toString(s + MIN_STATUS))
                    .register(registry);
            byStatus.set(s, c);
        }
        c.increment();
    }

    /** The Prometheus text exposition. */
    synchronized String scrape() {
        refreshSegments();
        scraped = source == null ? null : source.get();
        try {
            return registry.scrape();
        } finally {
            scraped = null;
        }
    }

    private synchronized void refreshSegments() {
        Set<String> seen = new HashSet<>();
        for (SegmentStats s : segments.get()) {
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

    /** A tag's statistics; zeros for one whose meters a concurrent scrape is removing. */
    private static SegmentStats stat(Map<String, SegmentStats> stats, String tag) {
        SegmentStats s = stats.get(tag);
        return s != null ? s : new SegmentStats(tag, 0, 0, 0, 0, 0, 0, false);
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

    @Override
    public void onSequenceWait() {
        sequenceWaits.increment();
    }

    @Override
    public void onClockBehind(long behindMillis) {
        clockBehind.increment();
    }
}

package io.idmint.server;

import io.idmint.GeneratorListener;
import io.idmint.GeneratorStatus;
import io.idmint.LeaseState;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
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
 * <li>{@code idmint_runway_seconds}, {@code idmint_clock_offset_seconds}: from the status.
 * </ul>
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
    void bind(Supplier<GeneratorStatus> status) {
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
    String scrape() {
        return registry.scrape();
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

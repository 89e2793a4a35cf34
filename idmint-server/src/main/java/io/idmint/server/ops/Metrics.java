package io.idmint.server.ops;

import io.idmint.GeneratorListener;
import io.idmint.GeneratorStatus;
import io.idmint.micrometer.IdmintMetrics;
import io.idmint.segment.SegmentStats;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.FileDescriptorMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;

/**
 * The server's metrics, in Prometheus text at {@code /metrics}: the generator and segment meters
 * of {@link IdmintMetrics} (defined there once, for the server and library users alike), plus
 * the HTTP meters. It is also the generator's listener, so sequence waits and clock faults are
 * counted where they happen. Every update on the request path is a lookup in a prebuilt array
 * and an adder: no strings, no maps.
 *
 * <ul>
 * <li>{@code idmint_http_requests_total{route,status}}: HTTP requests by path template;
 * <li>{@code idmint_grpc_requests_total{method,code}}: gRPC calls by method and status code;
 * <li>{@code idmint_rate_limit_shared_total}: charges of new clients that found the rate
 *     limit's table full and took the one shared allowance;
 * <li>{@code idmint_http_request_duration_seconds{route}}: time to answer, a histogram with a
 *     few fixed buckets ({@link #SLO_BUCKETS}), not the hundreds of a percentile histogram;
 * <li>{@code idmint_build_info{version,commit,java_version,layout}}: always 1;
 * <li>with TLS, {@code idmint_tls_certificate_expiry_timestamp_seconds}: when the served
 *     certificate expires (Unix seconds), and {@code idmint_tls_reloads_total{result}}: changed
 *     certificate files taken ({@code loaded}) or refused ({@code refused});
 * <li>{@code jvm_*} (memory, GC, threads, classes) and {@code process_*} / {@code system_*}
 *     (CPU, open files, uptime) from Micrometer's binders;
 * <li>the rest: see {@link IdmintMetrics}.
 * </ul>
 *
 * <p>A scrape reads the generator's status once, and every gauge answers from that snapshot.
 */
public final class Metrics implements GeneratorListener, AutoCloseable {

    private static final int MIN_STATUS = 100;
    private static final int MAX_STATUS = 599;
    /** What an operator alerts on: fast, slow, very slow (docs/observability.md). */
    public static final Duration[] SLO_BUCKETS = {Duration.ofMillis(1), Duration.ofMillis(5),
        Duration.ofMillis(25), Duration.ofMillis(100), Duration.ofMillis(500),
        Duration.ofSeconds(2)};

    private final PrometheusMeterRegistry registry =
            new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final IdmintMetrics idmint = IdmintMetrics.bindTo(registry);
    /** By HTTP route (its index in {@link #bindHttpRoutes}), then by status code. */
    private Timer[] durations = new Timer[0];
    private AtomicReferenceArray<Counter>[] requests;
    private List<String> routes = List.of();
    /** By HTTP route: whether a 429 or 503 there is a refused call (not a probe's answer). */
    private boolean[] refusable = new boolean[0];
    /** Calls refused "not now" on either transport, for the status page (no meter of its own). */
    private final java.util.concurrent.atomic.LongAdder refusals =
            new java.util.concurrent.atomic.LongAdder();
    /** By method name (the service's, so few), then by status code. */
    private final java.util.Map<String, AtomicReferenceArray<Counter>> grpcCalls =
            new java.util.concurrent.ConcurrentHashMap<>();
    private final Counter sharedAllowance;
    private boolean jvmBound;
    private boolean closed;
    /** The binders that hold JVM resources (GC notification listeners) until closed. */
    private final List<AutoCloseable> binders = new java.util.ArrayList<>();

    /**
     * @param build the build's labels: version, commit, java_version, layout (in any order)
     */
    @SuppressWarnings("unchecked")
    public Metrics(java.util.Map<String, String> build) {
        Gauge.Builder<?> info = Gauge.builder("idmint.build.info", () -> 1)
                .description("1, labelled with what this server is built from and runs");
        build.forEach(info::tag);
        info.register(registry);
        requests = new AtomicReferenceArray[0];
        sharedAllowance = Counter.builder("idmint.rate.limit.shared")
                .description("charges of new clients sent to the one shared allowance: the "
                        + "rate limit's table of clients was full")
                .register(registry);
    }

    /**
     * Adds the HTTP meters of each route, labelled by its path template; {@link #request} names
     * a route by its index in {@code labels}. Called once, before the first request.
     */
    @SuppressWarnings("unchecked")
    public void bindHttpRoutes(List<String> labels) {
        routes = List.copyOf(labels);
        durations = new Timer[routes.size()];
        requests = new AtomicReferenceArray[routes.size()];
        refusable = new boolean[routes.size()];
        for (int r = 0; r < routes.size(); r++) {
            // /health/ready answers 503 while not ready: that is its answer, not a refusal.
            refusable[r] = !routes.get(r).startsWith("/health/");
            durations[r] = Timer.builder("idmint.http.request.duration")
                    .description("time from a request's head to its response, by route")
                    .tag("route", routes.get(r))
                    .serviceLevelObjectives(SLO_BUCKETS)
                    .register(registry);
            requests[r] = new AtomicReferenceArray<>(MAX_STATUS - MIN_STATUS + 1);
        }
    }

    /** Adds the gauges that read the generator's status at each scrape. */
    public void bind(Supplier<GeneratorStatus> source) {
        idmint.generator(source);
    }

    /** Adds the meters of each segment tag, read from {@code stats} at each scrape. */
    public void bindSegments(Supplier<List<SegmentStats>> stats) {
        idmint.segments(stats);
    }

    /** Adds the meters of each serial this node served, read from {@code stats} at scrapes. */
    public void bindSerials(Supplier<List<io.idmint.segment.SerialStats>> stats) {
        idmint.serials(stats);
    }

    /** Adds the gauge of the served certificate's expiry, read at each scrape. */
    public void bindTls(Supplier<java.time.Instant> notAfter) {
        Gauge.builder("idmint.tls.certificate.expiry.timestamp",
                () -> notAfter.get().getEpochSecond())
                .description("when the certificate new TLS handshakes get expires, Unix time")
                .baseUnit("seconds").register(registry);
    }

    /** Counts changed certificate files, taken or refused. */
    public void tlsReload(boolean loaded) {
        Counter.builder("idmint.tls.reloads").description("changed TLS files taken or refused")
                .tag("result", loaded ? "loaded" : "refused").register(registry).increment();
    }

    /** Adds the gauge of the connections {@code limit} holds open. */
    public <T> void bindConnections(String transport, T limit, ToDoubleFunction<T> open) {
        Gauge.builder("idmint.connections.open", limit, open)
                .description("connections open, by transport").tag("transport", transport)
                .register(registry);
    }

    /** Counts a connection the server closed: refused at the limit, evicted, or idle. */
    public void connectionClosed(String transport, Enum<?> reason) {
        Counter.builder("idmint.connections.closed")
                .description("connections the server closed: refused at the limit, evicted to "
                        + "make room for a new one, or idle")
                .tag("transport", transport).tag("reason", reason.name().toLowerCase(Locale.ROOT))
                .register(registry).increment();
    }

    /** Adds the gauge of the gRPC reply bytes held for callers. */
    public <T> void bindGrpcBuffered(T limits, ToDoubleFunction<T> buffered) {
        Gauge.builder("idmint.grpc.buffered", limits, buffered)
                .description("bytes reserved for gRPC replies callers have not read yet")
                .baseUnit("bytes").register(registry);
    }

    /**
     * Adds the counter of calls a limit refused ({@code grpc_buffered}, {@code grpc_waiting},
     * {@code segment_tags}), read from {@code source} at each scrape (which the server holds:
     * meters hold it weakly).
     */
    public <T> void bindRefusals(String limit, T source,
            java.util.function.ToDoubleFunction<T> count) {
        io.micrometer.core.instrument.FunctionCounter.builder("idmint.limit.refusals", source,
                        count)
                .description("calls refused because a limit of the server was reached, by limit")
                .tag("limit", limit).register(registry);
    }

    /** Counts issued IDs; passed to {@code api.IdService}. */
    public void issued(long n) {
        idmint.issued(n);
    }

    public long issuedTotal() {
        return idmint.issuedTotal();
    }

    /**
     * Calls refused since start, HTTP and gRPC: answered 429 or 503 (but by {@code /health/*}),
     * or {@code RESOURCE_EXHAUSTED} or {@code UNAVAILABLE}: over a rate or a limit, not ready,
     * a store unavailable, overloaded. The status page charts it; a caller's own mistake (4xx)
     * is no refusal.
     */
    public long refusedTotal() {
        return refusals.sum();
    }

    /** Counts one answered request and its duration. */
    public void request(int route, int status, long nanos) {
        durations[route].record(nanos, TimeUnit.NANOSECONDS);
        if ((status == 429 || status == 503) && refusable[route]) {
            refusals.increment();
        }
        int s = Math.min(Math.max(status, MIN_STATUS), MAX_STATUS) - MIN_STATUS;
        AtomicReferenceArray<Counter> byStatus = requests[route];
        Counter c = byStatus.get(s);
        if (c == null) {
            c = Counter.builder("idmint.http.requests").description("HTTP requests answered")
                    .tag("route", routes.get(route)).tag("status", Integer.toString(s + MIN_STATUS))
                    .register(registry);
            byStatus.set(s, c);
        }
        c.increment();
    }

    /** Counts one gRPC call of the API by its method and the status it closed with. */
    public void grpcCall(String method, io.grpc.Status.Code code) {
        if (code == io.grpc.Status.Code.RESOURCE_EXHAUSTED
                || code == io.grpc.Status.Code.UNAVAILABLE) {
            refusals.increment();
        }
        AtomicReferenceArray<Counter> byCode = grpcCalls.computeIfAbsent(method,
                m -> new AtomicReferenceArray<>(io.grpc.Status.Code.values().length));
        Counter c = byCode.get(code.ordinal());
        if (c == null) {
            c = Counter.builder("idmint.grpc.requests").description("gRPC calls answered")
                    .tag("method", method).tag("code", code.name()).register(registry);
            byCode.set(code.ordinal(), c);
        }
        c.increment();
    }

    /** Counts a charge sent to the shared allowance; passed to {@code api.Access}. */
    public void rateLimitShared() {
        sharedAllowance.increment();
    }

    /** The Prometheus text exposition. */
    public String scrape() {
        bindJvm();
        return idmint.scrape(registry::scrape);
    }

    /**
     * Binds the JVM and process meters, at the first scrape: their management beans cost
     * start-up time that no request needs (docs/observability.md, "Start-up").
     */
    private synchronized void bindJvm() {
        if (jvmBound || closed) {
            return;
        }
        jvmBound = true;
        new JvmMemoryMetrics().bindTo(registry);
        JvmGcMetrics gc = new JvmGcMetrics();
        binders.add(gc);
        gc.bindTo(registry);
        new JvmThreadMetrics().bindTo(registry);
        new ClassLoaderMetrics().bindTo(registry);
        new ProcessorMetrics().bindTo(registry);
        new FileDescriptorMetrics().bindTo(registry);
        new UptimeMetrics().bindTo(registry);
    }

    /**
     * Closes the binders that listen to the JVM: a server in a JVM of many servers (the tests)
     * must not leave its GC listeners behind. The registry holds nothing else to release.
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (AutoCloseable b : binders) {
            try {
                b.close();
            } catch (Exception e) {
                throw new IllegalStateException("cannot close the " + b.getClass().getSimpleName()
                        + " meters: " + e.getMessage(), e);
            }
        }
        binders.clear();
    }

    @Override
    public void onSequenceWait() {
        idmint.onSequenceWait();
    }

    @Override
    public void onClockBehind(long behindMillis) {
        idmint.onClockBehind(behindMillis);
    }
}

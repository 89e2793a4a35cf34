package io.idmint.server.http;

import io.idmint.GeneratorStatus;
import io.idmint.Layout;
import io.idmint.TimeSource;
import io.idmint.segment.SegmentStats;
import io.idmint.segment.SerialStats;
import io.idmint.server.api.ApiException;
import io.idmint.server.api.IdService;
import io.idmint.server.api.NodeInfo;
import io.idmint.server.api.RequestPipeline;
import io.idmint.server.api.SegmentService;
import io.idmint.server.json.ApiJson;
import io.idmint.server.json.Json;
import io.idmint.server.ops.Metrics;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.concurrent.Callable;
import java.util.function.Function;

/**
 * Operations endpoints: {@code /health/live}, {@code /health/ready}, {@code /metrics}, the status
 * page {@code /} and the JSON it polls, {@code /api/v1/status}, and the API's OpenAPI document,
 * {@code /openapi.json}. None of them needs a token: they
 * issue and decode nothing, and probes and scrapers carry none.
 */
final class OpsEndpoints {

    private static final CharSequence PROMETHEUS_TEXT =
            HttpHeaders.createOptimized("text/plain; version=0.0.4; charset=utf-8");
    private static final CharSequence HTML =
            HttpHeaders.createOptimized("text/html; charset=utf-8");
    private static final CharSequence CSP = HttpHeaders.createOptimized("content-security-policy");
    /** The page is self-contained: its own inline style and script, and calls to this server. */
    private static final CharSequence PAGE_POLICY = HttpHeaders.createOptimized(
            "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline';"
                    + " connect-src 'self'");
    private static final CharSequence NO_CACHE = HttpHeaders.createOptimized("no-cache");
    private static final byte[] PAGE = page();
    private static final String LIVE = "{\"status\":\"UP\"}";

    private final IdService service;
    private final SegmentService segments;
    private final Metrics metrics;
    private final TimeSource time;
    private final NodeInfo node;
    private final byte[] openapi;
    private final RequestPipeline pipeline;

    OpsEndpoints(IdService service, SegmentService segments, Metrics metrics, TimeSource time,
            NodeInfo node, RequestPipeline pipeline) {
        this.node = node;
        this.pipeline = pipeline;
        this.openapi = OpenApiDocument.forMaxCount(service.maxCount());
        this.service = service;
        this.segments = segments;
        this.metrics = metrics;
        this.time = time;
    }

    /**
     * Answers a GET or HEAD on one of the operations routes: the status sent, at once, or once
     * rendered on a worker thread for metrics and status (they grow with the segment tags
     * served, and an event loop must never wait on rendering).
     */
    Future<Integer> serve(Route route, HttpServerRequest req) {
        HttpServerResponse res = req.response();
        try {
            if (route == Route.PAGE) {
                // The page's own parameter: ?decode=ID fills the decode box and runs it.
                Query.param(req.query(), "decode");
            } else {
                Query.none(req.query());
            }
        } catch (ApiException e) {
            return Responses.sent(Responses.problem(res, e.problem(), e.getMessage()));
        }
        return switch (route) {
            case STATUS -> {
                boolean tags = showsTags(req);
                yield rendered(() -> status(tags), text -> Responses.json(res, 200, text));
            }
            case METRICS -> {
                boolean tags = showsTags(req);
                yield rendered(() -> tags ? metrics.scrape() : withoutTags(metrics.scrape()),
                        text -> {
                            res.putHeader(HttpHeaders.CONTENT_TYPE, PROMETHEUS_TEXT)
                                    .end(Buffer.buffer(text));
                            return 200;
                        });
            }
            default -> Responses.sent(now(route, res));
        };
    }

    /** Answers a route that needs no rendering off the event loop. */
    private int now(Route route, HttpServerResponse res) {
        switch (route) {
            case LIVE:
                return Responses.json(res, 200, LIVE);
            case READY: {
                GeneratorStatus s = service.status();
                if (!s.ready()) {
                    res.putHeader(Responses.RETRY_AFTER, "1");
                }
                return Responses.json(res, s.ready() ? 200 : 503, new Json()
                        .add("state", s.state().name())
                        .add("datacenter", s.datacenterId(), s.datacenterId() >= 0)
                        .add("worker", s.workerId(), s.workerId() >= 0)
                        .add("runway_ms", s.runwayMillis())
                        .add("clock_offset_ms", s.clockOffsetMillis())
                        .add("fleet_skew_ms", s.fleetSkewMillis())
                        .addRaw("reason", reason(s))
                        .add("detail", s.detail())
                        .addRaw("workers", workers(s)).toString());
            }
            case PAGE:
                res.putHeader(HttpHeaders.CONTENT_TYPE, HTML).putHeader(CSP, PAGE_POLICY)
                        .putHeader(Responses.CACHE_CONTROL, NO_CACHE)
                        .end(Buffer.buffer(PAGE));
                return 200;
            case OPENAPI:
                res.putHeader(HttpHeaders.CONTENT_TYPE, Responses.JSON)
                        .putHeader(Responses.CACHE_CONTROL, NO_CACHE)
                        .end(Buffer.buffer(openapi));
                return 200;
            default:
                throw new IllegalStateException("not an operations route: " + route);
        }
    }

    /**
     * Whether this request may see segment tag names: with authentication on, a tag name and its
     * counts are what {@code ListSegments} guards as an admin call, and these endpoints need no
     * token.
     */
    private boolean showsTags(HttpServerRequest req) {
        return pipeline.showsTags(req.getHeader(HttpHeaders.AUTHORIZATION));
    }

    /** The exposition without the per-tag segment meters (every one is labelled by tag). */
    static String withoutTags(String exposition) {
        StringBuilder out = new StringBuilder(exposition.length());
        exposition.lines().filter(l -> !l.startsWith("idmint_segment_")
                        && !l.startsWith("# HELP idmint_segment_")
                        && !l.startsWith("# TYPE idmint_segment_"))
                .forEach(l -> out.append(l).append('\n'));
        return out.toString();
    }

    /** Renders on a worker thread, then sends on the request's event loop. */
    private static Future<Integer> rendered(Callable<String> render,
            Function<String, Integer> send) {
        return Vertx.currentContext().executeBlocking(render, false).map(send);
    }

    /**
     * {@code GET /api/v1/status}: what the status page shows. {@code ids_issued} and
     * {@code refused} (calls refused, {@link Metrics#refusedTotal()}) count every transport since
     * start; the page derives their rates from two polls and {@code now_ms}, and charts them.
     * {@code segments} holds the counters of each segment tag served since start, and
     * {@code serials} those of each serial; with authentication on, only for a request with the
     * admin token (else they are empty).
     */
    private String status(boolean tags) {
        GeneratorStatus s = service.status();
        Layout layout = service.layout();
        long now = time.currentTimeMillis();
        return new Json().add("state", s.state().name())
                .addRaw("ready", Boolean.toString(s.ready()))
                .add("node", node.id()).add("node_name", node.name())
                .add("version", node.version())
                .add("started_at", ApiJson.iso(node.startedMillis()))
                .add("uptime_ms", now - node.startedMillis())
                .add("registry", node.registry()).add("namespace", node.namespace())
                .add("datacenter", s.datacenterId(), s.datacenterId() >= 0)
                .add("worker", s.workerId(), s.workerId() >= 0)
                .add("layout", layout.toString()).add("layout_spec", layout.spec())
                .add("epoch", ApiJson.iso(layout.epochMillis()))
                .add("epoch_ms", layout.epochMillis())
                .add("runway_ms", s.runwayMillis()).add("clock_offset_ms", s.clockOffsetMillis())
                .add("fleet_skew_ms", s.fleetSkewMillis())
                .addRaw("reason", reason(s))
                .add("detail", s.detail())
                .addRaw("workers", workers(s))
                .add("ids_issued", metrics.issuedTotal())
                .add("refused", metrics.refusedTotal())
                .add("max_count", service.maxCount())
                .add("now_ms", now)
                .addRaw("segments", tags ? segments() : "[]")
                .addRaw("serials", tags ? serials() : "[]")
                .toString();
    }

    /** Why no ID can be issued ({@code "CLOCK_BEHIND_FLEET"}, …), or {@code null} while ready. */
    private static String reason(GeneratorStatus s) {
        return s.reason() == null ? "null" : Json.quote(s.reason().name());
    }

    /** {@code [{"tag":…,"served":…,"step":…,"remaining":…,"next_ready":…,…},…]}. */
    private String segments() {
        StringBuilder sb = new StringBuilder("[");
        for (SegmentStats t : segments.stats()) {
            sb.append(sb.length() > 1 ? "," : "").append(new Json().add("tag", t.tag())
                    .add("served", t.served()).add("step", t.step())
                    .add("remaining", t.remaining())
                    .addRaw("next_ready", Boolean.toString(t.nextReady()))
                    .add("ranges", t.ranges()).add("fetch_failures", t.fetchFailures()));
        }
        return sb.append(']').toString();
    }

    /**
     * {@code [{"serial":…,"counter":…,"issued":…,"dropped":…,"ranges":…,"held":…},…]}: the
     * counter is the current period's tag ({@code invoice~2026-11-28}), null before the first
     * value.
     */
    private String serials() {
        StringBuilder sb = new StringBuilder("[");
        for (SerialStats t : segments.serialStats()) {
            sb.append(sb.length() > 1 ? "," : "").append(new Json().add("serial", t.serial())
                    .add("counter", t.tag()).add("issued", t.issued())
                    .add("dropped", t.dropped()).add("ranges", t.ranges())
                    .add("held", t.buffered()));
        }
        return sb.append(']').toString();
    }

    /**
     * Every worker the generator mints from, in stripe order: one for a single worker, one per
     * stripe with {@code workers} above 1.
     */
    static String workers(GeneratorStatus s) {
        StringBuilder sb = new StringBuilder("[");
        for (GeneratorStatus.Worker w : s.workers()) {
            if (sb.length() > 1) {
                sb.append(',');
            }
            sb.append(new Json().add("datacenter", w.datacenterId(), w.datacenterId() >= 0)
                    .add("worker", w.workerId(), w.workerId() >= 0)
                    .add("state", w.state().name())
                    .addRaw("ready", Boolean.toString(w.ready()))
                    .add("runway_ms", w.runwayMillis()).add("detail", w.detail()));
        }
        return sb.append(']').toString();
    }

    private static byte[] page() {
        try (InputStream in =
                OpsEndpoints.class.getResourceAsStream("/io/idmint/server/status.html")) {
            if (in == null) {
                throw new IllegalStateException("status.html is missing from the build");
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}

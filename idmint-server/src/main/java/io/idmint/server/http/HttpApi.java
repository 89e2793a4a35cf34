package io.idmint.server.http;

import static io.idmint.server.http.Responses.problem;
import static io.idmint.server.http.Responses.problemAndClose;
import static io.idmint.server.http.Responses.sent;

import io.idmint.TimeSource;
import io.idmint.server.api.ApiException;
import io.idmint.server.api.Calls;
import io.idmint.server.api.IdService;
import io.idmint.server.api.InternalErrors;
import io.idmint.server.api.LoopMint;
import io.idmint.server.api.NodeInfo;
import io.idmint.server.api.Problem;
import io.idmint.server.api.RequestPipeline;
import io.idmint.server.api.SegmentService;
import io.idmint.server.json.JsonBytes;
import io.idmint.server.mint.CodesAndFormats;
import io.idmint.server.net.ConnectionLimit;
import io.idmint.server.ops.AccessLog;
import io.idmint.server.ops.Metrics;
import io.idmint.server.tls.ServerTls;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import io.vertx.core.AsyncResult;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.VerticleBase;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/**
 * The HTTP API (see docs/http-grpc.md) on Vert.x core: one instance per event loop, each with
 * its own scratch arrays, so the hot path allocates only the response. Routing is an exact match
 * on the path ({@link Route}); the JSON is written as bytes ({@link JsonBytes}). IDs and formats
 * are in {@link IdEndpoints}, segments in {@link SegmentEndpoints}, operations endpoints and the
 * status page in {@link OpsEndpoints}. A route names its operation ({@link Route#operation}),
 * whose rules decide the method allowed and the token needed; the operation itself (parse,
 * charge, mint) is a {@link Calls} method, and the endpoints render what it answers.
 *
 * <p>Order of checks, so that a rejected request issues nothing: body size, path, method,
 * token, parameters, rate limit, then the generator. What the pipeline refuses arrives here as
 * an {@link ApiException} and is answered as its {@link Problem}.
 */
public final class HttpApi extends VerticleBase {

    /** The longest request line (method, URI, version) accepted; longer gets 414. */
    public static final int MAX_REQUEST_LINE = 4096;
    /** The most header bytes accepted; more gets 431. */
    public static final int MAX_HEADERS = 8192;
    /**
     * Only creating a segment tag reads a body, a small one; a larger body gets 413 and the
     * connection is closed.
     */
    public static final long MAX_BODY = 1024;
    /** The URI of the request Netty's decoder makes up when the request line is unreadable. */
    private static final String INVALID_LINE_URI = "/bad-request";

    private final RequestPipeline pipeline;
    private final Metrics metrics;
    private final TimeSource time;
    private final IdEndpoints ids;
    private final OpsEndpoints ops;
    private final SegmentEndpoints segments;
    /** Leaf's answers on Leaf's two endpoints ({@code leaf.compat=strict}); null when off. */
    private final LeafCompat leaf;
    private final String host;
    private final int port;
    private final Duration grace;
    /** The TLS files, or null for plaintext. */
    private final ServerTls tls;
    private final ConnectionLimit connections;
    /** This event loop's connections and their places in the limit. */
    private final Map<HttpConnection, Connection> open = new HashMap<>();
    /** This event loop's Date header value. */
    private final DateHeader date;
    private HttpServer server;

    /**
     * @param port the port to listen on; negative asks Vert.x for one free port shared by all
     *     instances (0 would give each instance a port of its own)
     * @param grace how long requests in flight may take to finish when undeployed
     * @param leafStrict whether Leaf's endpoints answer as Leaf's server does
     *     ({@code leaf.compat=strict})
     * @param tls the TLS files, or null for plaintext
     * @param connections the HTTP connections all instances may hold open
     */
    public HttpApi(IdService service, CodesAndFormats formats, SegmentService segments,
            RequestPipeline pipeline, Metrics metrics, TimeSource time, String host, int port,
            Duration grace, NodeInfo node, boolean leafStrict, ServerTls tls,
            ConnectionLimit connections) {
        this.pipeline = pipeline;
        this.metrics = metrics;
        this.time = time;
        Calls calls = new Calls(pipeline, service, formats, segments);
        LoopMint mint = new LoopMint(service, time, WorkerWaits.INSTANCE);
        this.ids = new IdEndpoints(service, calls, time, mint);
        this.ops = new OpsEndpoints(service, segments, metrics, time, node, pipeline);
        this.segments = new SegmentEndpoints(calls, connections.idleTimeout());
        this.leaf = leafStrict ? new LeafCompat(calls, time, mint) : null;
        this.host = host;
        this.port = port;
        this.grace = grace;
        this.tls = tls;
        this.connections = connections;
        this.date = new DateHeader(time);
    }

    @Override
    public Future<?> start() {
        HttpServerOptions options = new HttpServerOptions()
                .setMaxInitialLineLength(MAX_REQUEST_LINE)
                .setMaxHeaderSize(MAX_HEADERS)
                // HTTP/2 only through TLS (ALPN): no cleartext upgrade a proxy would not expect.
                .setHttp2ClearTextEnabled(false)
                // No WebSocket is served; its extension handler also fails past 128 pipelined
                // requests instead of letting the connection wait (Vert.x 5.1, Netty 4.2).
                .setPerMessageWebSocketCompressionSupported(false)
                .setPerFrameWebSocketCompressionSupported(false);
        server = vertx.createHttpServer(tls == null ? options : tls.http(options));
        server.connectionHandler(this::connected).requestHandler(this::handle)
                .invalidRequestHandler(this::invalid);
        return server.listen(port, host);
    }

    /** Stops accepting, lets requests in flight finish for up to the grace period. */
    @Override
    public Future<?> stop() {
        return server.shutdown(grace);
    }

    /** The port listened on, once started. */
    public int port() {
        return server.actualPort();
    }

    /** Takes a place in the connection limit, or closes the connection when there is none. */
    private void connected(HttpConnection conn) {
        ConnectionLimit.Slot slot = connections.open(conn::close, true);
        if (slot == null) {
            conn.close();
            return;
        }
        Connection c = new Connection(slot);
        open.put(conn, c);
        conn.closeHandler(closed -> {
            open.remove(conn);
            slot.release();
        });
    }

    /** A connection's place in the limit, told when each of its requests is answered. */
    private static final class Connection implements Handler<Void> {
        final ConnectionLimit.Slot slot;

        Connection(ConnectionLimit.Slot slot) {
            this.slot = slot;
        }

        /** Its response ended (or the connection closed under it). */
        @Override
        public void handle(Void ended) {
            slot.ended();
        }
    }

    private void handle(HttpServerRequest req) {
        long start = time.nanoTime();
        Connection c = open.get(req.connection());
        if (c != null) {
            c.slot.started();
            req.response().endHandler(c);
        }
        req.response().putHeader(HttpHeaders.DATE, date.now());
        // With leaf.compat=strict, a path Leaf's server would read as its own is Leaf's.
        LeafPath leafPath = leaf == null ? null : LeafPath.of(req.path(), req.query());
        Route route = leafPath != null ? leafPath.route() : Route.of(req.path());
        Future<Integer> status;
        try {
            status = serve(route, req, leafPath);
        } catch (RuntimeException e) {
            status = Future.failedFuture(e);
        }
        if (status.isComplete()) {
            answered(req, route, status, start);
        } else {
            status.onComplete(done -> answered(req, route, done, start));
        }
    }

    /**
     * Records an answered request, answering a failure first: what the pipeline refuses as its
     * problem, anything else as a 500.
     */
    private void answered(HttpServerRequest req, Route route, AsyncResult<Integer> done,
            long start) {
        int status;
        if (done.succeeded()) {
            status = done.result();
        } else {
            ApiException refused = ApiException.of(done.cause());
            status = refused != null ? Responses.problem(req, refused)
                    : internalError(req, route, done.cause());
        }
        record(req, route, status, start);
    }

    private void record(HttpServerRequest req, Route route, int status, long start) {
        long nanos = time.nanoTime() - start;
        metrics.request(route.ordinal(), status, nanos);
        AccessLog log = pipeline.log();
        if (log != null) {
            log.request(req.method().name(), req.path(), status, nanos, req.getParam("count"),
                    req.remoteAddress().host());
        }
    }

    /**
     * Logs an unexpected failure under an incident id ({@link InternalErrors}) and answers 500
     * naming the id, unless an answer went out already. Neither names the exception nor echoes
     * the request: the log has the route, not the URI.
     */
    private int internalError(HttpServerRequest req, Route route, Throwable e) {
        String detail = pipeline.errors().report(e, req.method().name() + " " + route.label());
        return req.response().ended() ? 200
                : problem(req.response(), Problem.INTERNAL, detail);
    }

    /**
     * Answers a request: the status sent, now or later; what it throws or fails with is
     * answered by {@link #answered}.
     */
    private Future<Integer> serve(Route route, HttpServerRequest req, LeafPath leafPath) {
        HttpServerResponse res = req.response();
        if (hasLargeBody(req, route)) {
            return sent(problemAndClose(req, Problem.CONTENT_TOO_LARGE, "this server reads no "
                    + "request bodies over " + MAX_BODY + " bytes, and chunked ones only when "
                    + "creating a segment tag"));
        }
        HttpMethod method = req.method();
        if (leafPath != null) {
            Future<Integer> refused = leaf.refused(leafPath, req);
            if (refused != null) {
                return refused;
            }
            // A 2xx to CONNECT opens a tunnel (RFC 9110): idmint's 405 below, not Leaf's ID.
            if (method != HttpMethod.CONNECT) {
                // idmint's token and rate checks, then Leaf's answers.
                RequestPipeline.Caller caller = caller(req);
                pipeline.authorise(caller, route.operation(method), route.label());
                return leaf.serve(leafPath, req, caller);
            }
        }
        if (route == Route.UNMATCHED) {
            return sent(problem(res, Problem.NOT_FOUND, "no endpoint at path '" + req.path()
                    + "'"));
        }
        if (method != HttpMethod.GET && (method != HttpMethod.HEAD || route.mints())
                && (method != HttpMethod.POST || !route.posts())) {
            res.putHeader(HttpHeaders.ALLOW, route.allow());
            return sent(problem(res, Problem.METHOD_NOT_ALLOWED, "method " + method
                    + " is not allowed on " + route.label() + "; allowed: " + route.allow()));
        }
        switch (route) {
            case LIVE, READY, STATUS, METRICS, PAGE, OPENAPI:
                return ops.serve(route, req);
            default:
                break;
        }
        RequestPipeline.Caller caller = caller(req);
        pipeline.authorise(caller, route.operation(method), route.label());
        return switch (route) {
            case SEGMENTS, SEGMENT_IDS, SEGMENT_CODES, SEGMENT_CODE_PARTS, LEAF_SEGMENT, SERIALS,
                    SERIAL_VALUES ->
                    segments.serve(route, req, caller);
            default -> ids.serve(route, req, caller);
        };
    }

    /** Who is calling, read only when the pipeline checks tokens or rates. */
    private RequestPipeline.Caller caller(HttpServerRequest req) {
        return !pipeline.guarded() ? RequestPipeline.Caller.NOBODY : RequestPipeline.Caller.of(
                req.headers().getAll(HttpHeaders.AUTHORIZATION), req.remoteAddress().host());
    }

    /**
     * Whether a body is over {@link #MAX_BODY} by its length, or chunked where no body is read
     * (creating a segment tag reads its chunked body up to the limit as it arrives).
     */
    private static boolean hasLargeBody(HttpServerRequest req, Route route) {
        String length = req.getHeader(HttpHeaders.CONTENT_LENGTH);
        if (length != null) {
            try {
                return Long.parseLong(length.trim()) > MAX_BODY;
            } catch (NumberFormatException e) {
                return true;
            }
        }
        return req.getHeader(HttpHeaders.TRANSFER_ENCODING) != null
                && !(route.posts() && req.method() == HttpMethod.POST);
    }

    /**
     * Requests the decoder refused: too long a URI or headers, or not HTTP at all. The detail
     * is fixed per kind and never the decoder's message, which quotes the request's bytes (a
     * header line with its bearer token, say); nothing of the request is logged either.
     */
    private void invalid(HttpServerRequest req) {
        long start = time.nanoTime();
        req.response().putHeader(HttpHeaders.DATE, date.now());
        Throwable cause = req.decoderResult().cause();
        Problem p = cause instanceof TooLongHttpLineException ? Problem.URI_TOO_LONG
                : cause instanceof TooLongHttpHeaderException ? Problem.HEADERS_TOO_LARGE
                : Problem.BAD_REQUEST;
        String detail = switch (p) {
            case URI_TOO_LONG -> "the request line is longer than " + MAX_REQUEST_LINE + " bytes";
            case HEADERS_TOO_LARGE -> "the headers are larger than " + MAX_HEADERS + " bytes";
            // Netty stands a request of its own in for one whose request line it could not read.
            default -> INVALID_LINE_URI.equals(req.uri())
                    ? "malformed request: invalid request line"
                    : "malformed request: invalid header line";
        };
        problemAndClose(req, p, detail);
        metrics.request(Route.INVALID.ordinal(), p.status(), time.nanoTime() - start);
    }
}

package io.idmint.server;

import static io.idmint.server.Responses.json;
import static io.idmint.server.Responses.notReady;
import static io.idmint.server.Responses.problem;
import static io.idmint.server.Responses.problemAndClose;

import io.idmint.IdParts;
import io.idmint.IdUnavailableException;
import io.idmint.TimeSource;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import java.time.Duration;

/**
 * The HTTP API (SPEC "HTTP") on Vert.x core: one instance per event loop, each with its own
 * scratch arrays, so the hot path allocates only the response. Routing is an exact match on the
 * path ({@link Route}); the JSON is written as bytes ({@link JsonBytes}); operations endpoints
 * and the status page are in {@link OpsEndpoints}.
 *
 * <p>Order of checks, so that a rejected request issues nothing: body size, path, method,
 * token, parameters, rate limit, then the generator.
 */
final class HttpApi extends VerticleBase {

    private static final System.Logger LOG = System.getLogger(HttpApi.class.getName());

    /** The longest request line (method, URI, version) accepted; longer gets 414. */
    static final int MAX_REQUEST_LINE = 4096;
    /** The most header bytes accepted; more gets 431. */
    static final int MAX_HEADERS = 8192;
    /**
     * Only creating a segment tag reads a body, a small one; a larger body gets 413 and the
     * connection is closed.
     */
    static final long MAX_BODY = 1024;

    private static final byte[] LEAN_ID_OPEN = JsonBytes.ascii("{\"id\":");
    private static final byte[] LEAN_IDS_OPEN = JsonBytes.ascii("{\"ids\":[");
    private static final byte[] LEAN_IDS_CLOSE = JsonBytes.ascii("]}");
    private static final byte[] CODES_OPEN = JsonBytes.ascii("{\"codes\":[");
    private static final byte[] UUIDS_OPEN = JsonBytes.ascii("{\"uuids\":[");
    private static final byte[] OBJECTIDS_OPEN = JsonBytes.ascii("{\"objectids\":[");
    private static final byte[] FLAKES_OPEN = JsonBytes.ascii("{\"flakes\":[");
    private static final byte[] QUOTE = JsonBytes.ascii("\"");
    private static final byte[] COMMA_QUOTE = JsonBytes.ascii(",\"");

    private final IdService service;
    private final Formats formats;
    private final HttpAccess access;
    private final Metrics metrics;
    private final TimeSource time;
    private final OpsEndpoints ops;
    private final SegmentEndpoints segments;
    private final String host;
    private final int port;
    private final Duration grace;
    private final JsonBytes out = new JsonBytes(64 * 1024);
    private long[] ids = new long[1024];
    private HttpServer server;

    /**
     * @param port the port to listen on; negative asks Vert.x for one free port shared by all
     *     instances (0 would give each instance a port of its own)
     * @param grace how long requests in flight may take to finish when undeployed
     */
    HttpApi(IdService service, Formats formats, SegmentService segments, Access access,
            Metrics metrics, TimeSource time, String host, int port, Duration grace,
            NodeInfo node) {
        this.service = service;
        this.formats = formats;
        this.access = new HttpAccess(access);
        this.metrics = metrics;
        this.time = time;
        this.ops = new OpsEndpoints(service, segments, metrics, time, node);
        this.segments = new SegmentEndpoints(segments, this.access, metrics, time);
        this.host = host;
        this.port = port;
        this.grace = grace;
    }

    @Override
    public Future<?> start() {
        server = vertx.createHttpServer(new HttpServerOptions()
                .setMaxInitialLineLength(MAX_REQUEST_LINE)
                .setMaxHeaderSize(MAX_HEADERS));
        server.requestHandler(this::handle).invalidRequestHandler(this::invalid);
        return server.listen(port, host);
    }

    /** Stops accepting, lets requests in flight finish for up to the grace period. */
    @Override
    public Future<?> stop() {
        return server.shutdown(grace);
    }

    /** The port listened on, once started. */
    int port() {
        return server.actualPort();
    }

    private void handle(HttpServerRequest req) {
        long start = time.nanoTime();
        Route route = Route.of(req.path());
        int status;
        try {
            status = serve(route, req, start);
        } catch (RuntimeException e) {
            status = internalError(req, e);
        }
        if (status != SegmentEndpoints.PENDING) {
            metrics.request(route, status, time.nanoTime() - start);
        }
    }

    /** Logs an unexpected failure and answers 500, unless an answer went out already. */
    static int internalError(HttpServerRequest req, RuntimeException e) {
        LOG.log(System.Logger.Level.ERROR, "internal error answering " + req.method() + " "
                + req.uri(), e);
        return req.response().ended() ? 200
                : problem(req.response(), Problem.INTERNAL, "internal error: " + e);
    }

    private int serve(Route route, HttpServerRequest req, long start) {
        HttpServerResponse res = req.response();
        if (hasLargeBody(req)) {
            return problemAndClose(req, Problem.CONTENT_TOO_LARGE, "this server reads no "
                    + "request bodies over " + MAX_BODY + " bytes, and no chunked ones");
        }
        if (route == Route.UNMATCHED) {
            return problem(res, Problem.NOT_FOUND, "no endpoint at path '" + req.path() + "'");
        }
        HttpMethod method = req.method();
        if (method != HttpMethod.GET && (method != HttpMethod.HEAD || route.mints())
                && (method != HttpMethod.POST || !route.posts())) {
            res.putHeader(HttpHeaders.ALLOW, route.allow());
            return problem(res, Problem.METHOD_NOT_ALLOWED, "method " + method + " is not allowed"
                    + " on " + route.label() + "; allowed: " + route.allow());
        }
        switch (route) {
            case LEAN_ID:
                return oneId(req, Route.LEAN_ID);
            case LEAN_IDS:
            case IDS:
                return ids(req, route);
            case ID_PARTS:
            case LEAN_DECODE:
                return decode(req, route);
            case CODES:
            case UUIDS:
            case OBJECTIDS:
            case FLAKES:
                return strings(req, route);
            case CODE_PARTS:
                return decodeCode(req);
            case SEGMENTS:
            case SEGMENT_IDS:
            case LEAF_SEGMENT:
                return segments.serve(route, req, start);
            case LEAF_SNOWFLAKE:
                return oneId(req, Route.LEAF_SNOWFLAKE);
            default:
                return ops.serve(route, req);
        }
    }

    /**
     * One snowflake ID: {@code GET /v1/id} as JSON, or {@code GET /api/snowflake/get/{key}},
     * Leaf's API, as text (the key is ignored).
     */
    private int oneId(HttpServerRequest req, Route route) {
        HttpServerResponse res = req.response();
        int refused = access.refused(req, route, 0);
        if (refused != 0) {
            return refused;
        }
        try {
            Query.none(req.query());
        } catch (IllegalArgumentException e) {
            return problem(res, Problem.BAD_PARAMETER, e.getMessage());
        }
        refused = access.refused(req, route, 1);
        if (refused != 0) {
            return refused;
        }
        long id;
        try {
            id = service.nextId();
        } catch (IdUnavailableException e) {
            return notReady(res, e);
        }
        return route == Route.LEAF_SNOWFLAKE ? Responses.text(res, id)
                : json(res, out.reset().raw(LEAN_ID_OPEN).quoted(id).raw('}'));
    }

    private int ids(HttpServerRequest req, Route route) {
        HttpServerResponse res = req.response();
        int refused = access.refused(req, route, 0);
        if (refused != 0) {
            return refused;
        }
        int n;
        try {
            n = count(Query.param(req.query(), "count"), service.maxCount());
        } catch (IllegalArgumentException e) {
            return problem(res, Problem.BAD_PARAMETER, e.getMessage());
        }
        refused = access.refused(req, route, n);
        if (refused != 0) {
            return refused;
        }
        if (ids.length < n) {
            ids = new long[Math.max(n, Math.min(ids.length * 2, service.maxCount()))];
        }
        try {
            service.fill(ids, n);
        } catch (IdUnavailableException e) {
            return notReady(res, e);
        }
        if (route == Route.IDS) {
            return json(res, ApiJson.ids(out.reset(), service.layout(), ids, n,
                    time.currentTimeMillis()));
        }
        out.reset().reserve(n * 22 + 10).raw(LEAN_IDS_OPEN);
        for (int i = 0; i < n; i++) {
            if (i > 0) {
                out.raw(',');
            }
            out.quoted(ids[i]);
        }
        return json(res, out.raw(LEAN_IDS_CLOSE));
    }

    /** {@code count}: default 1, at most {@code max}; the message names the value and range. */
    static int count(String text, int max) {
        if (text == null) {
            return 1;
        }
        long n;
        try {
            n = IdService.parseCount(text);
        } catch (IllegalArgumentException e) {
            if (text.matches("-?\\d+")) {
                throw new IllegalArgumentException("count must be from 1 to " + max + ", got "
                        + text, e);
            }
            throw e;
        }
        IdService.checkCount(n, max);
        return (int) n;
    }

    private int decode(HttpServerRequest req, Route route) {
        HttpServerResponse res = req.response();
        int refused = access.refused(req, route, 0);
        if (refused != 0) {
            return refused;
        }
        boolean inPath = route == Route.ID_PARTS;
        String text;
        String format;
        try {
            if (inPath) {
                format = Query.param(req.query(), "format");
                text = Query.decodePath(req.path().substring(Route.ID_PARTS_PREFIX.length()));
            } else {
                java.util.Map<String, String> params = Query.params(req.query(), "id", "format");
                text = params.get("id");
                format = params.get("format");
            }
            if (format != null) {
                io.idmint.IdCodec.named(format);
            }
        } catch (IllegalArgumentException e) {
            return problem(res, Problem.BAD_PARAMETER, e.getMessage());
        }
        if (text == null || text.isEmpty()) {
            return problem(res, Problem.BAD_PARAMETER, inPath
                    ? "missing ID: the path must end in /api/v1/ids/{id}"
                    : "missing query parameter id: /v1/id/decode?id=ID");
        }
        IdParts p;
        try {
            p = service.decode(text, format);
        } catch (IllegalArgumentException e) {
            return problem(res, Problem.MALFORMED_ID, e.getMessage());
        }
        out.reset();
        return json(res, inPath ? ApiJson.parts(out, service.layout(), p)
                : ApiJson.lean(out, service.layout(), p));
    }

    /**
     * {@code /api/v1/codes}, {@code /uuids}, {@code /objectids}, {@code /flakes}:
     * {@code {"<name>":["…",…]}}. Checks as for IDs; a part that is not configured answers 503
     * (after the token, before the parameters).
     */
    private int strings(HttpServerRequest req, Route route) {
        HttpServerResponse res = req.response();
        int refused = access.refused(req, route, 0);
        if (refused != 0) {
            return refused;
        }
        try {
            if (route == Route.CODES) {
                formats.requireCodes();
            } else if (route == Route.FLAKES) {
                formats.requireFlakes();
            }
        } catch (Formats.NotConfiguredException e) {
            return problem(res, Problem.NOT_CONFIGURED, e.getMessage());
        }
        int n;
        try {
            n = count(Query.param(req.query(), "count"), service.maxCount());
        } catch (IllegalArgumentException e) {
            return problem(res, Problem.BAD_PARAMETER, e.getMessage());
        }
        refused = access.refused(req, route, n);
        if (refused != 0) {
            return refused;
        }
        out.reset().reserve(n * 40 + 16);
        try {
            switch (route) {
                case CODES -> {
                    if (ids.length < n) {
                        ids = new long[Math.max(n, Math.min(ids.length * 2, service.maxCount()))];
                    }
                    service.fill(ids, n);
                    var codec = formats.requireCodes();
                    out.raw(CODES_OPEN);
                    for (int i = 0; i < n; i++) {
                        if (i > 0) {
                            out.raw(',');
                        }
                        out.string(codec.encode(ids[i]));
                    }
                }
                case UUIDS -> {
                    out.raw(UUIDS_OPEN);
                    for (int i = 0; i < n; i++) {
                        out.raw(i > 0 ? COMMA_QUOTE : QUOTE)
                                .raw(JsonBytes.ascii(formats.uuids().next().toString()))
                                .raw('"');
                    }
                }
                case OBJECTIDS -> {
                    out.raw(OBJECTIDS_OPEN);
                    for (int i = 0; i < n; i++) {
                        out.raw(i > 0 ? COMMA_QUOTE : QUOTE)
                                .raw(JsonBytes.ascii(formats.objectIds().next().toHexString()))
                                .raw('"');
                    }
                }
                default -> {
                    var flakes = formats.requireFlakes();
                    out.raw(FLAKES_OPEN);
                    for (int i = 0; i < n; i++) {
                        out.raw(i > 0 ? COMMA_QUOTE : QUOTE)
                                .raw(JsonBytes.ascii(flakes.next().toHexString())).raw('"');
                    }
                }
            }
        } catch (IdUnavailableException e) {
            return notReady(res, e);
        }
        return json(res, out.raw(LEAN_IDS_CLOSE));
    }

    /**
     * {@code GET /api/v1/codes/{code}}: {@code {"code":…,"key_version":…,"value_string":…,
     * "value_hex":…,"breakdown":{…}}}; an admin call, like decoding an ID.
     */
    private int decodeCode(HttpServerRequest req) {
        HttpServerResponse res = req.response();
        int refused = access.refused(req, Route.CODE_PARTS, 0);
        if (refused != 0) {
            return refused;
        }
        if (formats.codes() == null) {
            return problem(res, Problem.NOT_CONFIGURED, Formats.CODES_NOT_CONFIGURED);
        }
        String text;
        try {
            Query.none(req.query());
            text = Query.decodePath(req.path().substring(Route.CODE_PARTS_PREFIX.length()));
        } catch (IllegalArgumentException e) {
            return problem(res, Problem.BAD_PARAMETER, e.getMessage());
        }
        if (text.isEmpty()) {
            return problem(res, Problem.BAD_PARAMETER,
                    "missing code: the path must end in /api/v1/codes/{code}");
        }
        Formats.DecodedCode d;
        try {
            d = formats.decodeCode(text, service.layout());
        } catch (IllegalArgumentException e) {
            return problem(res, Problem.MALFORMED_CODE, e.getMessage());
        }
        return json(res, ApiJson.codeParts(out.reset(), service.layout(), d.code(),
                d.keyVersion(), d.parts()));
    }

    private static boolean hasLargeBody(HttpServerRequest req) {
        String length = req.getHeader(HttpHeaders.CONTENT_LENGTH);
        if (length != null) {
            try {
                return Long.parseLong(length.trim()) > MAX_BODY;
            } catch (NumberFormatException e) {
                return true;
            }
        }
        return req.getHeader(HttpHeaders.TRANSFER_ENCODING) != null;
    }

    /** Requests the decoder refused: too long a URI or headers, or not HTTP at all. */
    private void invalid(HttpServerRequest req) {
        long start = time.nanoTime();
        Throwable cause = req.decoderResult().cause();
        Problem p = cause instanceof TooLongHttpLineException ? Problem.URI_TOO_LONG
                : cause instanceof TooLongHttpHeaderException ? Problem.HEADERS_TOO_LARGE
                : Problem.BAD_REQUEST;
        String detail = switch (p) {
            case URI_TOO_LONG -> "the request line is longer than " + MAX_REQUEST_LINE + " bytes";
            case HEADERS_TOO_LARGE -> "the headers are larger than " + MAX_HEADERS + " bytes";
            default -> "malformed request: " + (cause == null ? "unknown" : cause.getMessage());
        };
        problemAndClose(req, p, detail);
        metrics.request(Route.INVALID, p.status(), time.nanoTime() - start);
    }
}

package io.idmint.server.http;

import io.idmint.IdUnavailableException;
import io.idmint.TimeSource;
import io.idmint.server.api.ApiException;
import io.idmint.server.api.Count;
import io.idmint.server.api.IdService;
import io.idmint.server.api.RequestPipeline;
import io.idmint.server.api.SegmentService;
import io.idmint.server.api.Tag;
import io.idmint.server.json.Json;
import io.idmint.spi.UnknownTagException;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;

/**
 * Leaf's two endpoints as Leaf's server answers them, with {@code leaf.compat=strict}
 * (docs/migration.md, "Leaf HTTP compatibility"). Leaf maps {@code /api/segment/get/{key}} and
 * {@code /api/snowflake/get/{key}} for every method and ignores the query (Spring 4.3 answers
 * OPTIONS itself, listing every method but TRACE, and calls the handler for the rest, HEAD
 * included, which issues an ID); a failed call throws
 * an exception annotated with status 500, which Spring Boot 1.5 answers with its error JSON
 * ({@code timestamp, status, error, exception, message, path}; the message is Leaf's
 * {@code Result{id=<code>, status=EXCEPTION}}); a path with no key matches nothing: 404 in the
 * same JSON. Tokens and the rate limit stay idmint's (Leaf has neither).
 */
final class LeafCompat {

    /** The content type of Spring Boot 1.5's error JSON. */
    static final CharSequence ERROR_JSON =
            HttpHeaders.createOptimized("application/json;charset=UTF-8");
    /** Leaf's code: the tag is not in its table. */
    static final long KEY_NOT_EXISTS = -2;
    /** Leaf's code: both segments of the tag are empty (the store is slow or down). */
    static final long TWO_SEGMENTS_ARE_NULL = -3;
    /** What Spring 4.3 lists for OPTIONS on a mapping that declares no method. */
    static final String ALLOW = "GET,HEAD,POST,PUT,PATCH,DELETE,OPTIONS";
    private static final String EXCEPTION = "com.sankuai.inf.leaf.server.exception."
            + "LeafServerException";

    private final SegmentService segments;
    private final RequestPipeline pipeline;
    private final TimeSource time;
    private final LoopMint mint;

    LeafCompat(IdService service, SegmentService segments, RequestPipeline pipeline,
            TimeSource time) {
        this.segments = segments;
        this.pipeline = pipeline;
        this.time = time;
        this.mint = new LoopMint(service, time);
    }

    /** Whether a path is under Leaf's two endpoints, where a path with no key is Leaf's 404. */
    static boolean under(String path) {
        return path.startsWith("/api/segment/") || path.startsWith("/api/snowflake/");
    }

    /** Whether Leaf's server serves {@code method} (Tomcat refuses TRACE; CONNECT is no call). */
    static boolean serves(HttpMethod method) {
        return method != HttpMethod.TRACE && method != HttpMethod.CONNECT;
    }

    /**
     * Answers a Leaf route: the status sent, at once or when the ID is minted; the token was
     * checked by {@link HttpApi}, which answers what this throws (429) or fails with (a bug) as
     * idmint does.
     */
    Future<Integer> serve(Route route, HttpServerRequest req, RequestPipeline.Caller caller) {
        if (req.method() == HttpMethod.OPTIONS) {
            req.response().putHeader(HttpHeaders.ALLOW, ALLOW).end();
            return Responses.sent(200);
        }
        if (route == Route.LEAF_SNOWFLAKE) {
            pipeline.charge(caller, 1);
            try {
                if (mint.now(1) == 1) {
                    return Responses.sent(text(req, mint.ids()[0]));
                }
            } catch (IdUnavailableException e) {
                return Responses.sent(refused(req, e));
            }
            return mint.later(0, 1).map(ids -> text(req, ids[0])).recover(e ->
                    e instanceof IdUnavailableException u ? Future.succeededFuture(refused(req, u))
                            : Future.failedFuture(e));
        }
        Tag tag = Tag.orNull(
                decodedOrNull(req.path().substring(Route.LEAF_SEGMENT_PREFIX.length())));
        if (tag == null) {
            // Leaf holds any key; one idmint cannot hold is a key no table row has.
            return Responses.sent(error(req, 500, "Internal Server Error", KEY_NOT_EXISTS));
        }
        pipeline.charge(caller, 1);
        return Vertx.currentContext().executeBlocking(() -> segments.next(tag, Count.ONE), false)
                .transform(done -> Future.succeededFuture(done.succeeded()
                        ? text(req, done.result()[0])
                        : error(req, 500, "Internal Server Error",
                                done.cause() instanceof UnknownTagException ? KEY_NOT_EXISTS
                                        : TWO_SEGMENTS_ARE_NULL)));
    }

    /** A path under Leaf's endpoints that names no key: Spring's 404. */
    int notFound(HttpServerRequest req) {
        return send(req, 404, "Not Found", null, "No message available");
    }

    /**
     * Leaf's snowflake codes: -3 the clock went back more than 5 ms, -2 interrupted, -1 any
     * other refusal (Leaf's "clock still behind after waiting").
     */
    private int refused(HttpServerRequest req, IdUnavailableException e) {
        return error(req, 500, "Internal Server Error", switch (e.reason()) {
            case CLOCK_BEHIND -> -3;
            case INTERRUPTED -> -2;
            default -> -1;
        });
    }

    /** 200, the ID as the whole text body; a HEAD gets the headers only, as from Spring. */
    private static int text(HttpServerRequest req, long id) {
        HttpServerResponse res = req.response();
        String body = Long.toString(id);
        res.putHeader(HttpHeaders.CONTENT_TYPE, Responses.TEXT)
                .putHeader(Responses.CACHE_CONTROL, Responses.NO_STORE);
        if (req.method() == HttpMethod.HEAD) {
            res.putHeader(HttpHeaders.CONTENT_LENGTH, Integer.toString(body.length())).end();
        } else {
            res.end(body);
        }
        return 200;
    }

    private int error(HttpServerRequest req, int status, String error, long code) {
        return send(req, status, error, EXCEPTION, "Result{id=" + code + ", status=EXCEPTION}");
    }

    private int send(HttpServerRequest req, int status, String error, String exception,
            String message) {
        Json body = new Json().add("timestamp", time.currentTimeMillis()).add("status", status)
                .add("error", error);
        if (exception != null) {
            body.add("exception", exception);
        }
        body.add("message", message).add("path", req.path());
        HttpServerResponse res = req.response().setStatusCode(status)
                .putHeader(HttpHeaders.CONTENT_TYPE, ERROR_JSON)
                .putHeader(Responses.CACHE_CONTROL, Responses.NO_STORE);
        if (req.method() == HttpMethod.HEAD) {
            res.end();
        } else {
            res.end(Buffer.buffer(body.toString()));
        }
        return status;
    }

    /** The percent-decoded key, or null when its encoding is bad. */
    private static String decodedOrNull(String raw) {
        try {
            return Query.decodePath(raw);
        } catch (ApiException e) {
            return null;
        }
    }
}

package io.idmint.server.http;

import io.idmint.IdUnavailableException;
import io.idmint.TimeSource;
import io.idmint.server.api.Calls;
import io.idmint.server.api.IdBatch;
import io.idmint.server.api.LoopMint;
import io.idmint.server.api.RequestPipeline;
import io.idmint.server.json.Json;
import io.idmint.spi.UnknownTagException;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletionStage;

/**
 * Leaf's two endpoints as Leaf's server answers them, with {@code leaf.compat=strict}
 * (docs/migration.md, "Leaf HTTP compatibility"): Tomcat 8.5 and Spring MVC 4.3 under Spring
 * Boot 1.5. The path is read as they read it ({@link LeafPath}: Tomcat's 400, Spring's 404,
 * trailing slash, suffix pattern); TRACE is Tomcat's 405; every other method is served, HEAD
 * included (an ID is issued), and OPTIONS is Spring's list of methods; the query is ignored.
 * The ID's type and an error's form are negotiated as Spring does ({@link LeafMedia}). A failed
 * call is Leaf's exception, annotated with status 500, which Boot answers with its error JSON
 * ({@code timestamp, status, error, exception, message, path}; the message is Leaf's
 * {@code Result{id=<code>, status=EXCEPTION}}) or its HTML page; Tomcat then closes the
 * connection. Tokens and the rate limit stay idmint's (Leaf has neither).
 */
final class LeafCompat {

    /** Leaf's code: the tag is not in its table. */
    static final long KEY_NOT_EXISTS = -2;
    /** Leaf's code: both segments of the tag are empty (the store is slow or down). */
    static final long TWO_SEGMENTS_ARE_NULL = -3;
    /** What Spring 4.3 lists for OPTIONS on a mapping that declares no method. */
    static final String ALLOW = "GET,HEAD,POST,PUT,PATCH,DELETE,OPTIONS";
    /** What Tomcat lists when it refuses TRACE: the methods Spring's servlet implements. */
    static final String TRACE_ALLOW = "HEAD, DELETE, POST, GET, OPTIONS, PUT";
    private static final String EXCEPTIONS = "com.sankuai.inf.leaf.server.exception.";
    private static final CharSequence CONTENT_DISPOSITION =
            HttpHeaders.createOptimized("content-disposition");
    private static final CharSequence CONTENT_LANGUAGE =
            HttpHeaders.createOptimized("content-language");
    /** java.util.Date's toString, which Boot's HTML page shows. */
    private static final DateTimeFormatter CREATED = DateTimeFormatter.ofPattern(
            "EEE MMM dd HH:mm:ss zzz yyyy", Locale.US).withZone(ZoneId.systemDefault());

    private final Calls calls;
    private final TimeSource time;
    private final LoopMint mint;

    /** @param mint the event loop's mint step, shared with idmint's own snowflake paths */
    LeafCompat(Calls calls, TimeSource time, LoopMint mint) {
        this.calls = calls;
        this.time = time;
        this.mint = mint;
    }

    /**
     * What Tomcat and Spring answer before Leaf's handler, without idmint's token check: 400 for
     * a path Tomcat refuses, 405 for TRACE, 404 for a path no mapping matches; or null.
     */
    Future<Integer> refused(LeafPath path, HttpServerRequest req) {
        HttpServerResponse res = req.response();
        if (path.kind() == LeafPath.Kind.REFUSED) {
            res.setStatusCode(400).putHeader(HttpHeaders.CONNECTION, HttpHeaders.CLOSE)
                    .putHeader(HttpHeaders.CONTENT_LENGTH, "0").end()
                    .onComplete(done -> req.connection().close());
            return Responses.sent(400);
        }
        if (req.method() == HttpMethod.TRACE) {
            res.setStatusCode(405).putHeader(HttpHeaders.ALLOW, TRACE_ALLOW)
                    .putHeader(HttpHeaders.CONTENT_LENGTH, "0").end();
            return Responses.sent(405);
        }
        if (path.kind() == LeafPath.Kind.NOT_FOUND) {
            return Responses.sent(error(req, 404, "Not Found", null, "No message available"));
        }
        return null;
    }

    /**
     * Answers Leaf's handler: the status sent, at once or when the ID is minted; the token was
     * checked by {@link HttpApi}, which answers what this throws (429) or fails with (a bug) as
     * idmint does.
     */
    Future<Integer> serve(LeafPath path, HttpServerRequest req, RequestPipeline.Caller caller) {
        if (req.method() == HttpMethod.OPTIONS) {
            req.response().putHeader(HttpHeaders.ALLOW, ALLOW).end();
            return Responses.sent(200);
        }
        String type = LeafMedia.forId(path.extension(), accept(req));
        if (type == null) {
            // Leaf's handler would issue an ID first; Spring then finds no type to write it in.
            return Responses.sent(notAcceptable(req));
        }
        if (path.key().isEmpty()) {
            return Responses.sent(error(req, 500, "Internal Server Error", "NoKeyException",
                    "Key is none"));
        }
        if (path.kind() == LeafPath.Kind.SNOWFLAKE) {
            CompletionStage<IdBatch> minted;
            try {
                minted = calls.nextIds(caller, null, mint);
            } catch (IdUnavailableException e) {
                return Responses.sent(refused(req, e));
            }
            IdBatch now = Responses.now(minted);
            if (now != null) {
                return Responses.sent(text(req, now.ids()[0], type, path));
            }
            return Responses.awaited(minted).map(b -> text(req, b.ids()[0], type, path))
                    .recover(e -> e instanceof IdUnavailableException u
                            ? Future.succeededFuture(refused(req, u)) : Future.failedFuture(e));
        }
        return Responses.awaited(calls.leafSegmentId(caller, path.key(), WorkerWaits.INSTANCE))
                .transform(done -> Future.succeededFuture(done.succeeded()
                        ? text(req, done.result()[0], type, path)
                        : failed(req, done.cause() instanceof UnknownTagException
                                ? KEY_NOT_EXISTS : TWO_SEGMENTS_ARE_NULL)));
    }

    /**
     * Leaf's snowflake codes: -3 the clock went back more than 5 ms, -2 interrupted, -1 any
     * other refusal (Leaf's "clock still behind after waiting").
     */
    private int refused(HttpServerRequest req, IdUnavailableException e) {
        return failed(req, switch (e.reason()) {
            case CLOCK_BEHIND -> -3;
            case INTERRUPTED -> -2;
            default -> -1;
        });
    }

    /** 200, the ID as the whole body; a HEAD gets the headers only, as from Spring. */
    private static int text(HttpServerRequest req, long id, String type, LeafPath path) {
        HttpServerResponse res = req.response();
        res.putHeader(HttpHeaders.CONTENT_TYPE, type == LeafMedia.TEXT ? Responses.TEXT : type)
                .putHeader(Responses.CACHE_CONTROL, Responses.NO_STORE);
        if (path.attachment()) {
            res.putHeader(CONTENT_DISPOSITION, "inline;filename=f.txt");
        }
        send(req, res, Long.toString(id));
        return 200;
    }

    private int failed(HttpServerRequest req, long code) {
        return error(req, 500, "Internal Server Error", "LeafServerException",
                "Result{id=" + code + ", status=EXCEPTION}");
    }

    /**
     * Boot's error answer, JSON or its HTML page as Accept asks (406 when neither fits); a 500
     * closes the connection, as Tomcat does.
     *
     * @param exception the simple name of Leaf's exception class, or null
     */
    private int error(HttpServerRequest req, int status, String error, String exception,
            String message) {
        String form = LeafMedia.forError(accept(req));
        if (form == null) {
            return notAcceptable(req);
        }
        long now = time.currentTimeMillis();
        String body;
        HttpServerResponse res = req.response().setStatusCode(status)
                .putHeader(HttpHeaders.CONTENT_TYPE, form)
                .putHeader(Responses.CACHE_CONTROL, Responses.NO_STORE);
        if (form == LeafMedia.HTML) {
            res.putHeader(CONTENT_LANGUAGE, "en");
            body = "<html><body><h1>Whitelabel Error Page</h1><p>This application has no "
                    + "explicit mapping for /error, so you are seeing this as a fallback.</p>"
                    + "<div id='created'>" + CREATED.format(Instant.ofEpochMilli(now))
                    + "</div><div>There was an unexpected error (type=" + error + ", status="
                    + status + ").</div><div>" + message + "</div></body></html>";
        } else {
            Json json = new Json().add("timestamp", now).add("status", status)
                    .add("error", error);
            if (exception != null) {
                json.add("exception", EXCEPTIONS + exception);
            }
            body = json.add("message", message).add("path", req.path()).toString();
        }
        if (status == 500) {
            res.putHeader(HttpHeaders.CONNECTION, HttpHeaders.CLOSE);
            send(req, res, body).onComplete(done -> req.connection().close());
        } else {
            send(req, res, body);
        }
        return status;
    }

    /** Spring's 406: no type Accept allows, no body. */
    private static int notAcceptable(HttpServerRequest req) {
        req.response().setStatusCode(406).putHeader(HttpHeaders.CONTENT_LENGTH, "0").end();
        return 406;
    }

    /** The body, or for a HEAD its length only. */
    private static Future<Void> send(HttpServerRequest req, HttpServerResponse res,
            String body) {
        if (req.method() == HttpMethod.HEAD) {
            return res.putHeader(HttpHeaders.CONTENT_LENGTH,
                    Integer.toString(body.getBytes(StandardCharsets.UTF_8).length)).end();
        }
        return res.end(Buffer.buffer(body));
    }

    private static List<String> accept(HttpServerRequest req) {
        return req.headers().getAll(HttpHeaders.ACCEPT);
    }
}

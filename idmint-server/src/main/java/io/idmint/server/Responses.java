package io.idmint.server;

import io.idmint.IdUnavailableException;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;

/**
 * How the HTTP API answers: JSON bodies, RFC 9457 problems, 503 + Retry-After. Each method
 * sends the response and returns its status, for metrics. Header names and values are
 * prebuilt, so sending one costs no encoding.
 */
final class Responses {

    static final CharSequence JSON = HttpHeaders.createOptimized("application/json");
    static final CharSequence PROBLEM_JSON =
            HttpHeaders.createOptimized("application/problem+json");
    /** A cache in between must not hand one response's IDs to two callers. */
    static final CharSequence CACHE_CONTROL = HttpHeaders.createOptimized("cache-control");
    static final CharSequence NO_STORE = HttpHeaders.createOptimized("no-store");
    static final CharSequence RETRY_AFTER = HttpHeaders.createOptimized("retry-after");
    /** What Leaf's API answers with (Spring's default for a String). */
    static final CharSequence TEXT = HttpHeaders.createOptimized("text/plain;charset=UTF-8");

    private Responses() {
    }

    /** 200 with a JSON body. */
    static int json(HttpServerResponse res, JsonBytes body) {
        res.putHeader(HttpHeaders.CONTENT_TYPE, JSON).putHeader(CACHE_CONTROL, NO_STORE)
                .end(body.toBuffer());
        return 200;
    }

    /** {@code status} with a JSON body. */
    static int json(HttpServerResponse res, int status, String body) {
        res.setStatusCode(status).putHeader(HttpHeaders.CONTENT_TYPE, JSON)
                .putHeader(CACHE_CONTROL, NO_STORE).end(Buffer.buffer(body));
        return status;
    }

    /** 200 with one ID as the whole body, no newline: Leaf's API. */
    static int text(HttpServerResponse res, long id) {
        res.putHeader(HttpHeaders.CONTENT_TYPE, TEXT).putHeader(CACHE_CONTROL, NO_STORE)
                .end(Long.toString(id));
        return 200;
    }

    /** A problem; {@code detail} names the bad value. */
    static int problem(HttpServerResponse res, Problem p, String detail) {
        send(res, p, detail);
        return p.status();
    }

    /** Answers, then closes the connection: what is left of the request cannot be trusted. */
    static int problemAndClose(HttpServerRequest req, Problem p, String detail) {
        HttpServerResponse res = req.response().putHeader(HttpHeaders.CONNECTION,
                HttpHeaders.CLOSE);
        send(res, p, detail).onComplete(done -> req.connection().close());
        return p.status();
    }

    /** 503 + Retry-After in whole seconds (at least 1) when no ID can be issued now. */
    static int notReady(HttpServerResponse res, IdUnavailableException e) {
        long seconds = Math.max(1, (e.retryAfter().toMillis() + 999) / 1000);
        res.putHeader(RETRY_AFTER, Long.toString(seconds));
        return problem(res, Problem.NOT_READY, e.getMessage() + " (" + e.reason() + ")");
    }

    private static Future<Void> send(HttpServerResponse res, Problem p, String detail) {
        return res.setStatusCode(p.status()).putHeader(HttpHeaders.CONTENT_TYPE, PROBLEM_JSON)
                .putHeader(CACHE_CONTROL, NO_STORE).end(Buffer.buffer(p.json(detail)));
    }
}

package io.idmint.server.http;

import io.idmint.server.api.ApiException;
import io.idmint.server.api.Problem;
import io.idmint.server.api.Waits;
import io.idmint.server.json.JsonBytes;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * How the HTTP API answers: JSON bodies, RFC 9457 problems with their headers. Each method
 * sends the response and returns its status, for metrics. Header names and values are
 * prebuilt, so sending one costs no encoding.
 */
final class Responses {

    static final CharSequence JSON = HttpHeaders.createOptimized("application/json");
    static final CharSequence PROBLEM_JSON =
            HttpHeaders.createOptimized("application/problem+json");
    private static final String ID64_TEXT = "application/vnd.idmint.id64";
    /** IDs as 8-byte big-endian two's-complement integers, concatenated, nothing else. */
    static final CharSequence ID64 = HttpHeaders.createOptimized(ID64_TEXT);
    /** A cache in between must not hand one response's IDs to two callers. */
    static final CharSequence CACHE_CONTROL = HttpHeaders.createOptimized("cache-control");
    static final CharSequence NO_STORE = HttpHeaders.createOptimized("no-store");
    static final CharSequence RETRY_AFTER = HttpHeaders.createOptimized("retry-after");
    private static final CharSequence WWW_AUTHENTICATE =
            HttpHeaders.createOptimized("www-authenticate");
    private static final CharSequence AUTHENTICATE =
            HttpHeaders.createOptimized("Bearer realm=\"idmint\"");
    /** What Leaf's API answers with (Spring's default for a String). */
    static final CharSequence TEXT = HttpHeaders.createOptimized("text/plain;charset=UTF-8");

    /** The answered statuses as completed futures, made once: the hot path allocates none. */
    private static final Future<?>[] SENT = new Future<?>[500];

    static {
        for (int i = 0; i < SENT.length; i++) {
            SENT[i] = Future.succeededFuture(100 + i);
        }
    }

    private Responses() {
    }

    /** A response already sent with {@code status}, as the completion an endpoint returns. */
    @SuppressWarnings("unchecked")
    static Future<Integer> sent(int status) {
        return (Future<Integer>) SENT[status - 100];
    }

    /**
     * What an operation's completion holds when it completed normally already (the hot path:
     * no callback, no allocation), else null.
     */
    static <T> T now(CompletionStage<T> completion) {
        CompletableFuture<T> f = completion.toCompletableFuture();
        return f.isDone() && !f.isCompletedExceptionally() ? f.join() : null;
    }

    /**
     * An operation's completion as the event loop awaits it: its callbacks run where the
     * operation completes it (on the loop, see {@link WorkerWaits}), its failure is the one
     * the operation threw.
     */
    static <T> Future<T> awaited(CompletionStage<T> completion) {
        Promise<T> done = Promise.promise();
        completion.whenComplete((value, failure) -> {
            if (failure == null) {
                done.complete(value);
            } else {
                done.fail(Waits.cause(failure));
            }
        });
        return done.future();
    }

    /** 200 with a JSON body. */
    static int json(HttpServerResponse res, JsonBytes body) {
        res.putHeader(HttpHeaders.CONTENT_TYPE, JSON).putHeader(CACHE_CONTROL, NO_STORE)
                .end(body.toBuffer());
        return 200;
    }

    /**
     * Whether a request's {@code Accept} names {@link #ID64}: {@code /v1/ids} then answers with
     * the IDs as 8-byte big-endian integers, one after the other, for clients that would spend
     * more time parsing JSON than taking IDs (docs/clients.md).
     */
    static boolean wantsId64(HttpServerRequest req) {
        String accept = req.getHeader(HttpHeaders.ACCEPT);
        return accept != null && accept.regionMatches(true, 0, ID64_TEXT, 0, ID64_TEXT.length())
                && (accept.length() == ID64_TEXT.length()
                        || accept.charAt(ID64_TEXT.length()) == ';'
                        || accept.charAt(ID64_TEXT.length()) == ',');
    }

    /** 200 with {@code n} IDs as 8-byte big-endian integers ({@link #ID64}). */
    static int id64(HttpServerResponse res, long[] ids, int n) {
        Buffer body = Buffer.buffer(n * Long.BYTES);
        for (int i = 0; i < n; i++) {
            body.appendLong(ids[i]);
        }
        res.putHeader(HttpHeaders.CONTENT_TYPE, ID64).putHeader(CACHE_CONTROL, NO_STORE)
                .end(body);
        return 200;
    }

    /** {@code status} with a JSON body. */
    static int json(HttpServerResponse res, int status, String body) {
        res.setStatusCode(status).putHeader(HttpHeaders.CONTENT_TYPE, JSON)
                .putHeader(CACHE_CONTROL, NO_STORE).end(Buffer.buffer(body));
        return status;
    }

    /** 200 with one ID as the whole body, no newline: Leaf's API. */
    static int text(HttpServerResponse res, JsonBytes scratch, long id) {
        res.putHeader(HttpHeaders.CONTENT_TYPE, TEXT).putHeader(CACHE_CONTROL, NO_STORE)
                .end(scratch.reset().number(id).toBuffer());
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

    /**
     * What the request pipeline refused, as its problem: with {@code Retry-After} when retrying
     * helps, {@code WWW-Authenticate} on 401, and the connection closed on 400, 408 and 413
     * (what is left of the request cannot be trusted).
     */
    static int problem(HttpServerRequest req, ApiException e) {
        HttpServerResponse res = req.response();
        if (e.retryAfterSeconds() > 0) {
            res.putHeader(RETRY_AFTER, Long.toString(e.retryAfterSeconds()));
        }
        if (e.problem() == Problem.UNAUTHORIZED) {
            res.putHeader(WWW_AUTHENTICATE, AUTHENTICATE);
        }
        return e.problem() == Problem.CONTENT_TOO_LARGE || e.problem() == Problem.REQUEST_TIMEOUT
                || e.problem() == Problem.BAD_REQUEST
                ? problemAndClose(req, e.problem(), e.getMessage())
                : problem(res, e.problem(), e.getMessage());
    }

    private static Future<Void> send(HttpServerResponse res, Problem p, String detail) {
        return res.setStatusCode(p.status()).putHeader(HttpHeaders.CONTENT_TYPE, PROBLEM_JSON)
                .putHeader(CACHE_CONTROL, NO_STORE).end(Buffer.buffer(p.json(detail)));
    }
}

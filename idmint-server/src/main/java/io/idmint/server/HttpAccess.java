package io.idmint.server;

import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;

/** {@link Access} for HTTP: reads the bearer token and answers 401, 403 or 429 + Retry-After. */
final class HttpAccess {

    private static final CharSequence WWW_AUTHENTICATE =
            HttpHeaders.createOptimized("www-authenticate");
    private static final CharSequence AUTHENTICATE =
            HttpHeaders.createOptimized("Bearer realm=\"idmint\"");

    private final Access access;

    HttpAccess(Access access) {
        this.access = access;
    }

    /**
     * Checks the token (and, for {@code ids > 0}, the rate limit) when security is on. Returns
     * 0 to go on, else the status of the refusal it sent.
     */
    int refused(HttpServerRequest req, Route route, long n) {
        if (n == 0 ? !access.authEnabled() : !access.rateLimited()) {
            return 0;
        }
        String authorization = req.getHeader(HttpHeaders.AUTHORIZATION);
        // With auth on, a client is its (checked) token; without, its address, since made-up
        // tokens would otherwise buy fresh allowances.
        String client = n == 0 ? null : access.authEnabled() ? Access.token(authorization)
                : req.remoteAddress().host();
        HttpServerResponse res = req.response();
        switch (access.check(authorization, route.admin(), client, n)) {
            case OK:
                return 0;
            case UNAUTHORIZED:
                res.putHeader(WWW_AUTHENTICATE, AUTHENTICATE);
                return Responses.problem(res, Problem.UNAUTHORIZED, authorization == null
                        ? "this server needs an Authorization: Bearer token"
                        : "the bearer token is not valid here");
            case FORBIDDEN:
                return Responses.problem(res, Problem.FORBIDDEN, route.label()
                        + " is an admin call: it needs the admin token");
            default:
                res.putHeader(Responses.RETRY_AFTER, Long.toString(access.retryAfterSeconds()));
                return Responses.problem(res, Problem.RATE_LIMITED, "over the limit of "
                        + access.idsPerSecond() + " IDs per second for this client; asked for "
                        + n);
        }
    }
}

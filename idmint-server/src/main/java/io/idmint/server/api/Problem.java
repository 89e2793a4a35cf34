package io.idmint.server.api;

import io.idmint.server.json.Json;

/**
 * The kinds of error the HTTP API answers, as RFC 9457 problem details
 * ({@code application/problem+json}: {@code type, title, status, detail}). {@code about:blank}
 * types mean nothing beyond their status; the others are stable names clients may match on.
 */
public enum Problem {
    BAD_PARAMETER(400, "urn:idmint:problem:bad-parameter", "Bad parameter"),
    MALFORMED_ID(400, "urn:idmint:problem:malformed-id", "Malformed ID"),
    MALFORMED_CODE(400, "urn:idmint:problem:malformed-code", "Malformed code"),
    BAD_REQUEST(400, "about:blank", "Bad Request"),
    UNAUTHORIZED(401, "about:blank", "Unauthorized"),
    FORBIDDEN(403, "about:blank", "Forbidden"),
    NOT_FOUND(404, "about:blank", "Not Found"),
    UNKNOWN_TAG(404, "urn:idmint:problem:unknown-tag", "Unknown segment tag"),
    METHOD_NOT_ALLOWED(405, "about:blank", "Method Not Allowed"),
    TAG_EXISTS(409, "urn:idmint:problem:tag-exists", "Segment tag exists"),
    REQUEST_TIMEOUT(408, "about:blank", "Request Timeout"),
    CONTENT_TOO_LARGE(413, "about:blank", "Content Too Large"),
    URI_TOO_LONG(414, "about:blank", "URI Too Long"),
    RATE_LIMITED(429, "urn:idmint:problem:rate-limited", "Too many IDs"),
    TOO_MANY_TAGS(429, "urn:idmint:problem:too-many-tags", "Too many segment tags"),
    HEADERS_TOO_LARGE(431, "about:blank", "Request Header Fields Too Large"),
    INTERNAL(500, "about:blank", "Internal Server Error"),
    NOT_CONFIGURED(503, "urn:idmint:problem:not-configured",
            "This part of the service is not configured"),
    OVERLOADED(503, "urn:idmint:problem:overloaded",
            "The server holds its most for its callers"),
    NOT_READY(503, "urn:idmint:problem:not-ready", "No ID can be issued right now"),
    STORE_UNAVAILABLE(503, "urn:idmint:problem:store-unavailable",
            "The segment store did not answer");

    private final int status;
    private final String type;
    private final String title;

    Problem(int status, String type, String title) {
        this.status = status;
        this.type = type;
        this.title = title;
    }

    public int status() {
        return status;
    }

    /** The problem document for one occurrence; {@code detail} names the bad value. */
    public String json(String detail) {
        return new Json().add("type", type).add("title", title).add("status", status)
                .add("detail", detail).toString();
    }
}

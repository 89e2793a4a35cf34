package io.idmint.server;

import static io.idmint.server.Responses.json;

import io.idmint.IdCodec;
import io.idmint.IdParts;
import io.idmint.TimeSource;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import java.util.Map;

/**
 * The ID endpoints of the HTTP API (see docs/http-grpc.md): snowflake IDs, their parts, codes,
 * UUIDs, ObjectIds and flakes. Each handler parses, charges, mints and renders; the token was
 * checked by {@link HttpApi}, and failures are thrown as {@link ApiException} (or what
 * {@link ApiException#of} maps) for it to answer. One instance per {@link HttpApi}, on its event
 * loop: its scratch arrays are reused, so the hot path allocates only the response.
 */
final class IdEndpoints {

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
    private final RequestPipeline pipeline;
    private final TimeSource time;
    private final JsonBytes out = new JsonBytes(64 * 1024);
    private long[] ids = new long[1024];

    IdEndpoints(IdService service, Formats formats, RequestPipeline pipeline, TimeSource time) {
        this.service = service;
        this.formats = formats;
        this.pipeline = pipeline;
        this.time = time;
    }

    /** Answers a request on an ID route; returns the status sent. */
    int serve(Route route, HttpServerRequest req, RequestPipeline.Caller caller) {
        return switch (route) {
            case LEAN_ID, LEAF_SNOWFLAKE -> oneId(req, route, caller);
            case LEAN_IDS, IDS -> ids(req, route, caller);
            case ID_PARTS, LEAN_DECODE -> decode(req, route);
            case CODE_PARTS -> decodeCode(req);
            default -> strings(req, route, caller);
        };
    }

    /**
     * One snowflake ID: {@code GET /v1/id} as JSON, or {@code GET /api/snowflake/get/{key}},
     * Leaf's API, as text (the key is ignored).
     */
    private int oneId(HttpServerRequest req, Route route, RequestPipeline.Caller caller) {
        HttpServerResponse res = req.response();
        Query.none(req.query());
        pipeline.charge(caller, 1);
        long id = service.nextId();
        return route == Route.LEAF_SNOWFLAKE ? Responses.text(res, out, id)
                : json(res, out.reset().raw(LEAN_ID_OPEN).quoted(id).raw('}'));
    }

    private int ids(HttpServerRequest req, Route route, RequestPipeline.Caller caller) {
        HttpServerResponse res = req.response();
        int n = count(req, caller);
        service.fill(ids, n);
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

    /** Parses {@code count} and charges it; the scratch array then holds at least that many. */
    private int count(HttpServerRequest req, RequestPipeline.Caller caller) {
        int n = RequestPipeline.count(Query.param(req.query(), "count"), service.maxCount());
        pipeline.charge(caller, n);
        if (ids.length < n) {
            ids = new long[Math.max(n, Math.min(ids.length * 2, service.maxCount()))];
        }
        return n;
    }

    private int decode(HttpServerRequest req, Route route) {
        boolean inPath = route == Route.ID_PARTS;
        String text;
        String format;
        if (inPath) {
            format = Query.param(req.query(), "format");
            text = Query.decodePath(req.path().substring(Route.ID_PARTS_PREFIX.length()));
        } else {
            Map<String, String> params = Query.params(req.query(), "id", "format");
            text = params.get("id");
            format = params.get("format");
        }
        if (format != null) {
            RequestPipeline.check(() -> IdCodec.named(format));
        }
        RequestPipeline.required(text, inPath
                ? "missing id: the path must end in /api/v1/ids/{id}"
                : "missing id: the query parameter id, as in /v1/id/decode?id=ID");
        IdParts p;
        try {
            p = service.decode(text, format);
        } catch (IllegalArgumentException e) {
            throw new ApiException(Problem.MALFORMED_ID, e.getMessage());
        }
        out.reset();
        return json(req.response(), inPath ? ApiJson.parts(out, service.layout(), p)
                : ApiJson.lean(out, service.layout(), p));
    }

    /**
     * {@code /api/v1/codes}, {@code /uuids}, {@code /objectids}, {@code /flakes}:
     * {@code {"<name>":["…",…]}}. Checks as for IDs; a part that is not configured answers 503
     * (after the token, before the parameters).
     */
    private int strings(HttpServerRequest req, Route route, RequestPipeline.Caller caller) {
        if (route == Route.CODES) {
            formats.requireCodes();
        } else if (route == Route.FLAKES) {
            formats.requireFlakes();
        }
        int n = count(req, caller);
        out.reset().reserve(n * 40 + 16);
        switch (route) {
            case CODES -> {
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
                            .raw(JsonBytes.ascii(formats.uuids().next().toString())).raw('"');
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
        return json(req.response(), out.raw(LEAN_IDS_CLOSE));
    }

    /**
     * {@code GET /api/v1/codes/{code}}: {@code {"code":…,"key_version":…,"value_string":…,
     * "value_hex":…,"breakdown":{…}}}; an admin call, like decoding an ID.
     */
    private int decodeCode(HttpServerRequest req) {
        if (formats.codes() == null) {
            throw new Formats.NotConfiguredException(Formats.CODES_NOT_CONFIGURED);
        }
        Query.none(req.query());
        String text = RequestPipeline.required(
                Query.decodePath(req.path().substring(Route.CODE_PARTS_PREFIX.length())),
                "missing code: the path must end in /api/v1/codes/{code}");
        Formats.DecodedCode d;
        try {
            d = formats.decodeCode(text, service.layout());
        } catch (IllegalArgumentException e) {
            throw new ApiException(Problem.MALFORMED_CODE, e.getMessage());
        }
        return json(req.response(), ApiJson.codeParts(out.reset(), service.layout(), d.code(),
                d.keyVersion(), d.parts()));
    }
}

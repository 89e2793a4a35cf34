package io.idmint.server.http;

import static io.idmint.server.http.Responses.json;

import io.idmint.IdParts;
import io.idmint.TimeSource;
import io.idmint.server.api.ApiException;
import io.idmint.server.api.Calls;
import io.idmint.server.api.IdBatch;
import io.idmint.server.api.IdService;
import io.idmint.server.api.LoopMint;
import io.idmint.server.api.Operation;
import io.idmint.server.api.RequestPipeline;
import io.idmint.server.json.ApiJson;
import io.idmint.server.json.JsonBytes;
import io.idmint.server.mint.CodesAndFormats;
import io.idmint.server.mint.TimeWindows;
import io.vertx.core.Future;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import java.util.Map;
import java.util.concurrent.CompletionStage;

/**
 * The ID endpoints of the HTTP API (see docs/http-grpc.md): snowflake IDs, their parts, codes,
 * UUIDs, ObjectIds and flakes. Each handler reads the query into its operation ({@link Calls})
 * and renders what that answers; the token was checked by {@link HttpApi}, and failures are
 * thrown as {@link ApiException} (or what {@link ApiException#of} maps) for it to answer, or
 * fail the completion. Snowflake IDs are minted by the event loop's {@link LoopMint}: a batch
 * the clock cannot fill at once is finished a tick later, and the loop never waits. One
 * instance per {@link HttpApi}, on its event loop: its scratch arrays are reused, so the hot
 * path allocates only the response.
 */
final class IdEndpoints {

    private static final byte[] LEAN_ID_OPEN = JsonBytes.ascii("{\"id\":");
    private static final byte[] LEAN_IDS_OPEN = JsonBytes.ascii("{\"ids\":[");
    private static final byte[] LEAN_IDS_CLOSE = JsonBytes.ascii("]}");
    private static final byte[] CODES_OPEN = JsonBytes.ascii("{\"codes\":[");
    private static final byte[] UUIDS_OPEN = JsonBytes.ascii("{\"uuids\":[");
    private static final byte[] TYPED_OPEN = JsonBytes.ascii("{\"ids\":[");
    private static final byte[] OBJECTIDS_OPEN = JsonBytes.ascii("{\"objectids\":[");
    private static final byte[] FLAKES_OPEN = JsonBytes.ascii("{\"flakes\":[");
    private static final byte[] QUOTE = JsonBytes.ascii("\"");
    private static final byte[] COMMA_QUOTE = JsonBytes.ascii(",\"");

    private final IdService service;
    private final Calls calls;
    private final TimeSource time;
    private final LoopMint mint;
    private final JsonBytes out = new JsonBytes(64 * 1024);

    /** @param mint the event loop's mint step, shared with Leaf's snowflake path */
    IdEndpoints(IdService service, Calls calls, TimeSource time, LoopMint mint) {
        this.service = service;
        this.calls = calls;
        this.time = time;
        this.mint = mint;
    }

    /**
     * Answers a request on an ID route: the status sent, at once, or a tick later when a batch
     * waits for the clock; a failure is {@link HttpApi}'s to answer.
     */
    Future<Integer> serve(Route route, HttpServerRequest req, RequestPipeline.Caller caller) {
        switch (route) {
            case LEAN_ID, LEAF_SNOWFLAKE -> {
                // GET /v1/id as JSON, or GET /api/snowflake/get/{key}, Leaf's API, as text
                // (the key is ignored).
                Query.none(req.query());
                return ids(req, route, calls.nextIds(caller, null, mint));
            }
            case LEAN_IDS, IDS -> {
                return ids(req, route, calls.nextIds(caller, Query.param(req.query(), "count"),
                        mint));
            }
            case ID_PARTS, LEAN_DECODE -> {
                return Responses.sent(decode(req, route));
            }
            case CODE_PARTS -> {
                return Responses.sent(decodeCode(req));
            }
            case RANGE -> {
                Map<String, String> params = Query.params(req.query(), "from", "to", "kind");
                TimeWindows.Window w = calls.range(params.get("from"), params.get("to"),
                        params.get("kind"), "from", "to");
                return Responses.sent(json(req.response(), out.reset().raw(JsonBytes.ascii(
                        ApiJson.window(w.kind(), w.layout(), w.from().toString(),
                                w.to().toString(), w.idFrom(), w.idTo())))));
            }
            case FENCED_UUIDS -> {
                calls.served(Operation.NEXT_FENCED_UUIDS);
                Map<String, String> params = Query.params(req.query(), "count", "prefix");
                return Responses.awaited(calls.nextFencedUuids(caller, params.get("count"),
                        params.get("prefix"), mint))
                        .map(uuids -> strings(req.response(), UUIDS_OPEN, uuids));
            }
            case TYPED_IDS -> {
                Map<String, String> params = Query.params(req.query(), "count", "prefix");
                return Responses.awaited(calls.nextTypedIds(caller, params.get("count"),
                        params.get("prefix"), mint))
                        .map(typed -> strings(req.response(), TYPED_OPEN, typed));
            }
            case CODES -> {
                calls.served(Operation.NEXT_CODES);
                return Responses.awaited(calls.nextCodes(caller,
                        Query.param(req.query(), "count"), mint))
                        .map(codes -> strings(req.response(), CODES_OPEN, codes));
            }
            default -> {
                Operation op = route.operation(HttpMethod.GET);
                calls.served(op);
                String[] minted = calls.nextStrings(op, caller, Query.param(req.query(),
                        "count"));
                return Responses.sent(strings(req.response(), switch (route) {
                    case UUIDS -> UUIDS_OPEN;
                    case OBJECTIDS -> OBJECTIDS_OPEN;
                    default -> FLAKES_OPEN;
                }, minted));
            }
        }
    }

    /** Answers with the snowflake IDs minted, now or a tick later. */
    private Future<Integer> ids(HttpServerRequest req, Route route,
            CompletionStage<IdBatch> minted) {
        IdBatch now = Responses.now(minted);
        if (now != null) {
            return Responses.sent(answer(req, route, now.ids(), now.count()));
        }
        return Responses.awaited(minted).map(b -> answer(req, route, b.ids(),
                b.count()));
    }

    /** Renders the snowflake IDs of a route. */
    private int answer(HttpServerRequest req, Route route, long[] ids, int n) {
        HttpServerResponse res = req.response();
        switch (route) {
            case LEAN_ID -> {
                return json(res, out.reset().raw(LEAN_ID_OPEN).quoted(ids[0]).raw('}'));
            }
            case LEAF_SNOWFLAKE -> {
                return Responses.text(res, out, ids[0]);
            }
            case IDS -> {
                return json(res, ApiJson.ids(out.reset(), service.layout(), ids, n,
                        time.currentTimeMillis()));
            }
            default -> {
                if (Responses.wantsId64(req)) {
                    return Responses.id64(res, ids, n);
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
        }
    }

    /** {@code {"<name>":["…",…]}}: codes, UUIDs, ObjectIds or flakes. */
    private int strings(HttpServerResponse res, byte[] open, String[] minted) {
        out.reset().reserve(minted.length * 40 + 16).raw(open);
        for (int i = 0; i < minted.length; i++) {
            out.raw(i > 0 ? COMMA_QUOTE : QUOTE).raw(JsonBytes.ascii(minted[i])).raw('"');
        }
        return json(res, out.raw(LEAN_IDS_CLOSE));
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
        IdParts p = calls.decode(text, format, inPath
                ? "missing id: the path must end in /api/v1/ids/{id}"
                : "missing id: the query parameter id, as in /v1/id/decode?id=ID");
        out.reset();
        return json(req.response(), inPath ? ApiJson.parts(out, service.layout(), p)
                : ApiJson.lean(out, service.layout(), p));
    }

    /**
     * {@code GET /api/v1/codes/{code}}: {@code {"code":…,"key_version":…,"value_string":…,
     * "value_hex":…,"breakdown":{…}}}; an admin call, like decoding an ID.
     */
    private int decodeCode(HttpServerRequest req) {
        calls.served(Operation.DECODE_CODE);
        Query.none(req.query());
        CodesAndFormats.DecodedCode d = calls.decodeCode(
                Query.decodePath(req.path().substring(Route.CODE_PARTS_PREFIX.length())),
                "missing code: the path must end in /api/v1/codes/{code}");
        return json(req.response(), ApiJson.codeParts(out.reset(), service.layout(), d.code(),
                d.keyVersion(), d.parts()));
    }
}

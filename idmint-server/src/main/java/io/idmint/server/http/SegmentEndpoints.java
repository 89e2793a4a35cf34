package io.idmint.server.http;

import io.idmint.segment.SerialDefinition;
import io.idmint.server.api.ApiException;
import io.idmint.server.api.Calls;
import io.idmint.server.api.Problem;
import io.idmint.server.api.RequestPipeline;
import io.idmint.server.api.SegmentService;
import io.idmint.server.json.ApiJson;
import io.idmint.server.json.Json;
import io.idmint.server.json.JsonBytes;
import io.idmint.server.json.StrictJson;
import io.idmint.spi.TagInfo;
import io.idmint.spi.support.Durations;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClosedException;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The segment endpoints of the HTTP API (see docs/http-grpc.md and docs/segments.md): a tag's
 * IDs, Leaf's segment API, and the admin calls that list and create tags. Each reads its wire
 * into its operation in {@link Calls}, whose work with the store runs on Vert.x's worker
 * threads ({@link WorkerWaits}), never on an event loop: a call may wait for the store (up to
 * segment.fetch-timeout when both buffers of a tag are empty; create and list always ask it),
 * and an event loop that waited would hold up the snowflake API it also serves. The answer is
 * written back on the event loop, which owns {@link #out}. One instance per {@link HttpApi}.
 */
final class SegmentEndpoints {

    private static final byte[] TAG_OPEN = JsonBytes.ascii("{\"tag\":");
    private static final byte[] IDS_OPEN = JsonBytes.ascii(",\"ids\":[");
    private static final byte[] IDS_CLOSE = JsonBytes.ascii("]}");
    private static final Set<String> CREATE_FIELDS = Set.of("tag", "start", "step");
    private static final String CREATE_EXAMPLE = "{\"tag\":\"order\",\"start\":1,\"step\":1000}";
    private static final Set<String> DEFINE_FIELDS = Set.of("name", "period", "zone", "template",
            "first", "max_rate", "step");
    private static final String DEFINE_EXAMPLE = "{\"name\":\"invoice\",\"period\":\"day\","
            + "\"zone\":\"Europe/Berlin\",\"template\":\"INV-{date:yyyyMMdd}-{counter:6}\"}";

    private final Calls calls;
    private final Duration bodyTimeout;
    private final JsonBytes out = new JsonBytes(16 * 1024);

    /** @param bodyTimeout how long a request body may take to arrive whole (idle-timeout) */
    SegmentEndpoints(Calls calls, Duration bodyTimeout) {
        this.calls = calls;
        this.bodyTimeout = bodyTimeout;
    }

    /**
     * Answers a request on a segment route: the status sent, once the store's work is done; the
     * token was checked by {@link HttpApi}, which also answers what this throws or fails with.
     */
    Future<Integer> serve(Route route, HttpServerRequest req, RequestPipeline.Caller caller) {
        HttpServerResponse res = req.response();
        if (route == Route.SEGMENTS) {
            Query.none(req.query());
            return req.method() == HttpMethod.POST ? create(req)
                    : Responses.awaited(calls.listSegments(WorkerWaits.INSTANCE))
                            .map(tags -> Responses.json(res, 200, tagsJson(tags)));
        }
        if (route == Route.SERIALS) {
            Query.none(req.query());
            return req.method() == HttpMethod.POST ? define(req)
                    : Responses.awaited(calls.listSerials(WorkerWaits.INSTANCE))
                            .map(list -> Responses.json(res, 200, serialsJson(list)));
        }
        if (route == Route.SERIAL_VALUES) {
            String name = Query.decodePath(req.path().substring(Route.SERIALS_PREFIX.length()));
            return Responses.awaited(calls.nextSerials(caller, name, Query.param(req.query(),
                    "count"), WorkerWaits.INSTANCE))
                    .map(values -> Responses.json(res, 200, new Json().add("serial", name)
                            .addRaw("values", stringArray(values)).toString()));
        }
        if (route == Route.SEGMENT_CODES) {
            String tag = Query.decodePath(Route.segmentTag(req.path()));
            return Responses.awaited(calls.segmentCodes(caller, tag, Query.param(req.query(),
                    "count"), WorkerWaits.INSTANCE))
                    .map(codes -> Responses.json(res, 200, new Json().add("tag", tag)
                            .addRaw("codes", stringArray(codes)).toString()));
        }
        if (route == Route.SEGMENT_CODE_PARTS) {
            Query.none(req.query());
            SegmentService.DecodedCode d = calls.decodeSegmentCode(
                    Query.decodePath(Route.segmentTag(req.path())),
                    Query.decodePath(Route.segmentCode(req.path())),
                    "missing code: the path must end in /api/v1/segments/{tag}/codes/{code}");
            return Responses.sent(Responses.json(res, 200, new Json().add("tag", d.tag())
                    .add("code", d.code()).add("value", Long.toString(d.value()))
                    .add("key_version", d.keyVersion()).toString()));
        }
        String tag;
        String count;
        if (route == Route.SEGMENT_IDS) {
            tag = Query.decodePath(Route.segmentTag(req.path()));
            count = Query.param(req.query(), "count");
        } else {
            tag = Query.decodePath(req.path().substring(Route.LEAF_SEGMENT_PREFIX.length()));
            Query.none(req.query());
            count = null;
        }
        return Responses.awaited(calls.segmentIds(caller, tag, count, WorkerWaits.INSTANCE))
                .map(ids -> route
                == Route.SEGMENT_IDS ? Responses.json(res, idsJson(tag, ids))
                : Responses.text(res, out, ids[0]));
    }

    /** {@code POST /api/v1/segments}: reads the body, creates the tag, answers 201. */
    private Future<Integer> create(HttpServerRequest req) {
        Future<TagInfo> created = body(req).compose(body -> {
            Map<String, Object> o = object(body, CREATE_FIELDS, "tag, start and step",
                    CREATE_EXAMPLE, "tag");
            return Responses.awaited(calls.createSegment((String) o.get("tag"),
                    whole(o, "start"), whole(o, "step"), WorkerWaits.INSTANCE));
        });
        return created.map(t -> Responses.json(req.response(), 201, tagJson(t).toString()));
    }

    /** {@code POST /api/v1/serials}: reads the body, defines the serial, answers 201. */
    private Future<Integer> define(HttpServerRequest req) {
        Future<SerialDefinition> defined = body(req).compose(body -> {
            Map<String, Object> o = object(body, DEFINE_FIELDS,
                    "name, period, zone, template, first, max_rate and step", DEFINE_EXAMPLE,
                    "name");
            return Responses.awaited(calls.defineSerial((String) o.get("name"),
                    text(o, "period"), text(o, "zone"), text(o, "template"), whole(o, "first"),
                    whole(o, "max_rate"), whole(o, "step"), WorkerWaits.INSTANCE));
        });
        return defined.map(d -> Responses.json(req.response(), 201,
                ApiJson.serial(d).toString()));
    }

    /** An optional string field; null if absent. */
    private static String text(Map<String, Object> o, String name) {
        Object v = o.get(name);
        if (v == null || v instanceof String) {
            return (String) v;
        }
        throw new ApiException(Problem.BAD_PARAMETER, "field " + name + " must be a string, got "
                + v);
    }

    /** {@code {"serials":[{…},…]}}. */
    private static String serialsJson(List<SerialDefinition> list) {
        StringBuilder out = new StringBuilder("[");
        for (SerialDefinition d : list) {
            out.append(out.length() > 1 ? "," : "").append(ApiJson.serial(d));
        }
        return new Json().addRaw("serials", out.append(']').toString()).toString();
    }

    /** {@code ["a","b"]}. */
    private static String stringArray(String[] values) {
        StringBuilder out = new StringBuilder("[");
        for (int i = 0; i < values.length; i++) {
            out.append(i > 0 ? "," : "").append(Json.quote(values[i]));
        }
        return out.append(']').toString();
    }

    /**
     * The request body, whether it came with a length or chunked, read up to
     * {@link HttpApi#MAX_BODY} bytes: one byte more fails it with 413.
     */
    private Future<Buffer> body(HttpServerRequest req) {
        Promise<Buffer> body = Promise.promise();
        Buffer read = Buffer.buffer();
        req.handler(chunk -> {
            if (read.length() + chunk.length() > HttpApi.MAX_BODY) {
                body.tryFail(new ApiException(Problem.CONTENT_TOO_LARGE, "the body is over "
                        + HttpApi.MAX_BODY + " bytes; a segment tag needs far fewer"));
            } else {
                read.appendBuffer(chunk);
            }
        });
        // A body must come whole within the idle timeout: one sent a byte at a time would
        // otherwise hold its connection (and its place in the limit) for as long as it likes.
        Vertx vertx = Vertx.currentContext().owner();
        long timer = vertx.setTimer(bodyTimeout.toMillis(),
                t -> body.tryFail(new ApiException(Problem.REQUEST_TIMEOUT, "the request body "
                        + "did not arrive whole within " + Durations.format(bodyTimeout)
                        + " (idle-timeout)")));
        req.exceptionHandler(e -> body.tryFail(new ApiException(Problem.BAD_REQUEST,
                e instanceof HttpClosedException ? "the connection closed before the body ended"
                        : "the request body is malformed")));
        req.endHandler(end -> body.tryComplete(read));
        return body.future().andThen(done -> vertx.cancelTimer(timer));
    }

    /**
     * A body that must be a JSON object of {@code fields} only, with the string field
     * {@code required}; refused naming the problem and showing {@code example}.
     */
    private static Map<String, Object> object(Buffer body, Set<String> fields, String listed,
            String example, String required) {
        String text = body.toString(StandardCharsets.UTF_8);
        Object parsed;
        try {
            parsed = text.isBlank() ? null : StrictJson.parse(text);
        } catch (IllegalArgumentException e) {
            throw new ApiException(Problem.BAD_PARAMETER, "the body must be a JSON object such "
                    + "as " + example + "; " + e.getMessage());
        }
        if (!(parsed instanceof Map<?, ?> map)) {
            throw new ApiException(Problem.BAD_PARAMETER, "the body must be a JSON object such as "
                    + example + ", got '" + text + "'");
        }
        @SuppressWarnings("unchecked")
        Map<String, Object> o = (Map<String, Object>) map;
        for (String name : o.keySet()) {
            if (!fields.contains(name)) {
                throw new ApiException(Problem.BAD_PARAMETER, "unknown field '" + name
                        + "'; the fields are " + listed + ", such as " + example);
            }
        }
        if (!(o.get(required) instanceof String)) {
            throw new ApiException(Problem.BAD_PARAMETER, "field " + required + " must be a "
                    + "string, got " + (o.containsKey(required) ? o.get(required) : "none")
                    + ", such as " + example);
        }
        return o;
    }

    /** An optional whole-number field, as a JSON number or a decimal string; null if absent. */
    private static Long whole(Map<String, Object> o, String name) {
        Object v = o.get(name);
        if (v == null) {
            return null;
        }
        if (v instanceof Long l) {
            return l;
        }
        if (v instanceof String s && s.matches("-?\\d{1,18}")) {
            return Long.parseLong(s);
        }
        throw new ApiException(Problem.BAD_PARAMETER, "field " + name
                + " must be a whole number, got " + (v instanceof String ? "'" + v + "'" : v));
    }

    /** {@code {"tag":"order","ids":["1001",…]}}. */
    private JsonBytes idsJson(String tag, long[] ids) {
        out.reset().reserve(ids.length * 22 + tag.length() + 24).raw(TAG_OPEN).string(tag)
                .raw(IDS_OPEN);
        for (int i = 0; i < ids.length; i++) {
            if (i > 0) {
                out.raw(',');
            }
            out.quoted(ids[i]);
        }
        return out.raw(IDS_CLOSE);
    }

    /** {@code {"segments":[{"tag":…,"next":"…","step":…},…]}}. */
    private static String tagsJson(List<TagInfo> tags) {
        StringBuilder list = new StringBuilder("[");
        for (TagInfo t : tags) {
            list.append(list.length() > 1 ? "," : "").append(tagJson(t));
        }
        return new Json().addRaw("segments", list.append(']').toString()).toString();
    }

    /** {@code {"tag":…,"next":"…","step":…}}: next is an ID, so a string. */
    private static Json tagJson(TagInfo t) {
        return new Json().add("tag", t.tag()).add("next", Long.toString(t.next()))
                .add("step", t.step());
    }
}

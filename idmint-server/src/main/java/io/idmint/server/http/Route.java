package io.idmint.server.http;

import io.idmint.server.api.Operation;
import io.vertx.core.http.HttpMethod;

/**
 * The HTTP API's paths (docs/http-grpc.md), matched exactly: no trailing slashes, no prefixes. Each
 * route names itself in metrics by its path template, so the label set stays small, and names
 * the {@link Operation} it serves, whose rules (mints, admin) are the route's.
 */
public enum Route {
    IDS("/api/v1/ids", Operation.NEXT_IDS),
    ID_PARTS("/api/v1/ids/{id}", Operation.DECODE),
    CODES("/api/v1/codes", Operation.NEXT_CODES),
    CODE_PARTS("/api/v1/codes/{code}", Operation.DECODE_CODE),
    UUIDS("/api/v1/uuids", Operation.NEXT_UUIDS),
    FENCED_UUIDS("/api/v1/fenced-uuids", Operation.NEXT_FENCED_UUIDS),
    TYPED_IDS("/api/v1/typed-ids", Operation.NEXT_TYPED_IDS),
    OBJECTIDS("/api/v1/objectids", Operation.NEXT_OBJECT_IDS),
    FLAKES("/api/v1/flakes", Operation.NEXT_FLAKES),
    /** The IDs of a time window, as query bounds. */
    RANGE("/api/v1/range", Operation.RANGE),
    STATUS("/api/v1/status", null),
    /** GET lists the segment tags, POST creates one ({@link Operation#CREATE_SEGMENT}). */
    SEGMENTS("/api/v1/segments", Operation.LIST_SEGMENTS),
    SEGMENT_IDS("/api/v1/segments/{tag}/ids", Operation.NEXT_SEGMENT_IDS),
    SEGMENT_CODES("/api/v1/segments/{tag}/codes", Operation.NEXT_SEGMENT_CODES),
    SEGMENT_CODE_PARTS("/api/v1/segments/{tag}/codes/{code}", Operation.DECODE_SEGMENT_CODE),
    /** GET lists the serials, POST defines one ({@link Operation#DEFINE_SERIAL}). */
    SERIALS("/api/v1/serials", Operation.LIST_SERIALS),
    SERIAL_VALUES("/api/v1/serials/{name}", Operation.NEXT_SERIALS),
    /** Leaf's segment API: one ID as text. */
    LEAF_SEGMENT("/api/segment/get/{tag}", Operation.NEXT_SEGMENT_IDS),
    /** Leaf's snowflake API: one snowflake ID as text; the key is ignored, as in Leaf. */
    LEAF_SNOWFLAKE("/api/snowflake/get/{key}", Operation.NEXT_IDS),
    LEAN_ID("/v1/id", Operation.NEXT_IDS),
    LEAN_IDS("/v1/ids", Operation.NEXT_IDS),
    LEAN_DECODE("/v1/id/decode", Operation.DECODE),
    LIVE("/health/live", null),
    READY("/health/ready", null),
    METRICS("/metrics", null),
    PAGE("/", null),
    /** The OpenAPI 3.1 document of this API. */
    OPENAPI("/openapi.json", null),
    /** Any other path: 404. */
    UNMATCHED("unmatched", null),
    /** A request the HTTP decoder refused (URI or headers too large, malformed). */
    INVALID("invalid", null);

    static final String ID_PARTS_PREFIX = "/api/v1/ids/";
    static final String CODE_PARTS_PREFIX = "/api/v1/codes/";
    static final String SEGMENTS_PREFIX = "/api/v1/segments/";
    static final String SERIALS_PREFIX = "/api/v1/serials/";
    static final String SEGMENT_IDS_SUFFIX = "/ids";
    static final String SEGMENT_CODES_PART = "/codes";
    static final String LEAF_SEGMENT_PREFIX = "/api/segment/get/";
    static final String LEAF_SNOWFLAKE_PREFIX = "/api/snowflake/get/";

    private final String label;
    private final Operation operation;

    Route(String label, Operation operation) {
        this.label = label;
        this.operation = operation;
    }

    /** Every route's label, in the order of {@link #ordinal()}, for the metrics. */
    public static java.util.List<String> labels() {
        return java.util.Arrays.stream(values()).map(Route::label).toList();
    }

    /** The path template, as metrics label it. */
    public String label() {
        return label;
    }

    /**
     * The operation a {@code method} request on this route asks for, or null for the routes
     * that serve none (health, metrics, status, pages, no match).
     */
    Operation operation(HttpMethod method) {
        if (method == HttpMethod.POST) {
            if (this == SEGMENTS) {
                return Operation.CREATE_SEGMENT;
            }
            if (this == SERIALS) {
                return Operation.DEFINE_SERIAL;
            }
        }
        return operation;
    }

    /** Whether a call issues IDs: then only GET is allowed, since a HEAD would waste them. */
    boolean mints() {
        return operation != null && operation.mints();
    }

    /** Whether it is an admin call ({@link Operation#admin()}). */
    boolean admin() {
        return operation != null && operation.admin();
    }

    /** Whether POST is allowed (it creates something). */
    public boolean posts() {
        return this == SEGMENTS || this == SERIALS;
    }

    /** The value of the {@code Allow} header. */
    public String allow() {
        return mints() ? "GET" : posts() ? "GET, HEAD, POST" : "GET, HEAD";
    }

    /** The route of a raw request path. */
    static Route of(String path) {
        switch (path) {
            case "/v1/id":
                return LEAN_ID;
            case "/v1/ids":
                return LEAN_IDS;
            case "/api/v1/ids":
                return IDS;
            case "/v1/id/decode":
                return LEAN_DECODE;
            case "/api/v1/codes":
                return CODES;
            case "/api/v1/uuids":
                return UUIDS;
            case "/api/v1/fenced-uuids":
                return FENCED_UUIDS;
            case "/api/v1/typed-ids":
                return TYPED_IDS;
            case "/api/v1/objectids":
                return OBJECTIDS;
            case "/api/v1/flakes":
                return FLAKES;
            case "/api/v1/range":
                return RANGE;
            case "/api/v1/status":
                return STATUS;
            case "/api/v1/segments":
                return SEGMENTS;
            case "/api/v1/serials":
                return SERIALS;
            case "/health/live":
                return LIVE;
            case "/health/ready":
                return READY;
            case "/metrics":
                return METRICS;
            case "/":
                return PAGE;
            case "/openapi.json":
                return OPENAPI;
            default:
                if (below(path, ID_PARTS_PREFIX)) {
                    return ID_PARTS;
                }
                if (below(path, CODE_PARTS_PREFIX)) {
                    return CODE_PARTS;
                }
                if (below(path, SERIALS_PREFIX)) {
                    return SERIAL_VALUES;
                }
                if (path.startsWith(SEGMENTS_PREFIX)) {
                    return segmentRoute(path);
                }
                // Leaf's paths need a key, as Spring's {key} does.
                if (below(path, LEAF_SEGMENT_PREFIX)
                        && path.length() > LEAF_SEGMENT_PREFIX.length()) {
                    return LEAF_SEGMENT;
                }
                return below(path, LEAF_SNOWFLAKE_PREFIX)
                        && path.length() > LEAF_SNOWFLAKE_PREFIX.length() ? LEAF_SNOWFLAKE
                        : UNMATCHED;
        }
    }

    /** Whether {@code path} is {@code prefix} and one more segment (possibly empty). */
    private static boolean below(String path, String prefix) {
        return path.startsWith(prefix) && path.indexOf('/', prefix.length()) < 0;
    }

    /**
     * {@code /api/v1/segments/{tag}/ids}, {@code …/{tag}/codes} or {@code …/{tag}/codes/{code}};
     * anything else below the prefix matches nothing.
     */
    private static Route segmentRoute(String path) {
        int slash = path.indexOf('/', SEGMENTS_PREFIX.length());
        if (slash < 0) {
            return UNMATCHED;
        }
        String rest = path.substring(slash);
        if (rest.equals(SEGMENT_IDS_SUFFIX)) {
            return SEGMENT_IDS;
        }
        if (rest.equals(SEGMENT_CODES_PART)) {
            return SEGMENT_CODES;
        }
        return rest.startsWith(SEGMENT_CODES_PART + "/")
                && rest.indexOf('/', SEGMENT_CODES_PART.length() + 1) < 0 ? SEGMENT_CODE_PARTS
                : UNMATCHED;
    }

    /** The raw (still percent-encoded) tag of a segment path ({@link #segmentRoute}). */
    static String segmentTag(String path) {
        return path.substring(SEGMENTS_PREFIX.length(), path.indexOf('/',
                SEGMENTS_PREFIX.length()));
    }

    /** The raw code of a {@link #SEGMENT_CODE_PARTS} path. */
    static String segmentCode(String path) {
        return path.substring(path.indexOf(SEGMENT_CODES_PART + "/", SEGMENTS_PREFIX.length())
                + SEGMENT_CODES_PART.length() + 1);
    }
}

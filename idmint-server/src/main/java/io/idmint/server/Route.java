package io.idmint.server;

/**
 * The HTTP API's paths (SPEC "HTTP"), matched exactly: no trailing slashes, no prefixes. Each
 * route names itself in metrics by its path template, so the label set stays small.
 */
enum Route {
    IDS("/api/v1/ids", true, false),
    ID_PARTS("/api/v1/ids/{id}", false, true),
    CODES("/api/v1/codes", true, false),
    CODE_PARTS("/api/v1/codes/{code}", false, true),
    UUIDS("/api/v1/uuids", true, false),
    OBJECTIDS("/api/v1/objectids", true, false),
    FLAKES("/api/v1/flakes", true, false),
    STATUS("/api/v1/status", false, false),
    LEAN_ID("/v1/id", true, false),
    LEAN_IDS("/v1/ids", true, false),
    LEAN_DECODE("/v1/id/decode", false, true),
    LIVE("/health/live", false, false),
    READY("/health/ready", false, false),
    METRICS("/metrics", false, false),
    PAGE("/", false, false),
    /** Any other path: 404. */
    UNMATCHED("unmatched", false, false),
    /** A request the HTTP decoder refused (URI or headers too large, malformed). */
    INVALID("invalid", false, false);

    static final String ID_PARTS_PREFIX = "/api/v1/ids/";
    static final String CODE_PARTS_PREFIX = "/api/v1/codes/";

    private final String label;
    private final boolean mints;
    private final boolean admin;

    Route(String label, boolean mints, boolean admin) {
        this.label = label;
        this.mints = mints;
        this.admin = admin;
    }

    /** The path template, as metrics label it. */
    String label() {
        return label;
    }

    /** Whether a call issues IDs: then only GET is allowed, since a HEAD would waste them. */
    boolean mints() {
        return mints;
    }

    /** Whether it is an admin call (decoding), which needs the admin token when one is set. */
    boolean admin() {
        return admin;
    }

    /** The value of the {@code Allow} header. */
    String allow() {
        return mints ? "GET" : "GET, HEAD";
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
            case "/api/v1/objectids":
                return OBJECTIDS;
            case "/api/v1/flakes":
                return FLAKES;
            case "/api/v1/status":
                return STATUS;
            case "/health/live":
                return LIVE;
            case "/health/ready":
                return READY;
            case "/metrics":
                return METRICS;
            case "/":
                return PAGE;
            default:
                if (path.startsWith(ID_PARTS_PREFIX)
                        && path.indexOf('/', ID_PARTS_PREFIX.length()) < 0) {
                    return ID_PARTS;
                }
                return path.startsWith(CODE_PARTS_PREFIX)
                        && path.indexOf('/', CODE_PARTS_PREFIX.length()) < 0 ? CODE_PARTS
                        : UNMATCHED;
        }
    }
}

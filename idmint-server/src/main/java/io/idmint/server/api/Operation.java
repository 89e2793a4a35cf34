package io.idmint.server.api;

/**
 * The operations of the API, whatever the transport, and the rules that come with being one:
 * whether it mints (then HTTP allows only GET) and whether it is an admin call (then it needs the
 * admin token, when one is set). Each HTTP route that serves an operation names it
 * ({@code http.Route}); each gRPC method is the operation of its name ({@link #named}). These
 * rules are written here and nowhere else.
 */
public enum Operation {
    NEXT_IDS("NextIds", true, false),
    STREAM_IDS("StreamIds", true, false),
    DECODE("Decode", false, true),
    NEXT_CODES("NextCodes", true, false),
    DECODE_CODE("DecodeCode", false, true),
    NEXT_UUIDS("NextUuids", true, false),
    /** UUIDv7s carrying leased IDs: NextIds in another form. */
    NEXT_FENCED_UUIDS("NextFencedUuids", true, false),
    /** IDs with a type prefix: NextIds in another form. */
    NEXT_TYPED_IDS("NextTypedIds", true, false),
    NEXT_OBJECT_IDS("NextObjectIds", true, false),
    NEXT_FLAKES("NextFlakes", true, false),
    NEXT_SEGMENT_IDS("NextSegmentIds", true, false),
    /** Public codes of a tag's next values (docs/segments.md#public-codes). */
    NEXT_SEGMENT_CODES("NextSegmentCodes", true, false),
    DECODE_SEGMENT_CODE("DecodeSegmentCode", false, true),
    CREATE_SEGMENT("CreateSegment", false, true),
    LIST_SEGMENTS("ListSegments", false, true),
    /** Values of a serial (docs/serials.md): a counter's next values, written. */
    NEXT_SERIALS("NextSerials", true, false),
    DEFINE_SERIAL("DefineSerial", false, true),
    LIST_SERIALS("ListSerials", false, true),
    /** The IDs of a time window: arithmetic on the layout, nothing minted or revealed. */
    RANGE("Range", false, false);

    private static final Operation[] ALL = values();

    private final String name;
    private final boolean mints;
    private final boolean admin;

    Operation(String name, boolean mints, boolean admin) {
        this.name = name;
        this.mints = mints;
        this.admin = admin;
    }

    /** The operation of this name (its gRPC method's, {@code idmint.v1.IdService}), or null. */
    public static Operation named(String name) {
        for (Operation op : ALL) {
            if (op.name.equals(name)) {
                return op;
            }
        }
        return null;
    }

    /** Its name, as the gRPC method that serves it. */
    public String callName() {
        return name;
    }

    /** Whether a call issues IDs (or codes, UUIDs, ObjectIds, flakes). */
    public boolean mints() {
        return mints;
    }

    /**
     * Whether it is an admin call (decoding, listing and creating segment tags), which needs the
     * admin token when one is set.
     */
    public boolean admin() {
        return admin;
    }
}

package io.idmint.server.api;

import io.idmint.IdCodec;
import io.idmint.IdParts;
import io.idmint.server.mint.CodesAndFormats;
import io.idmint.spi.TagInfo;
import java.util.List;
import java.util.function.LongConsumer;
import java.util.function.Supplier;

/**
 * The operations as both transports call them, once the transport has authorised the call
 * ({@link RequestPipeline#authorise}): the methods here run each operation's parse and charge
 * steps, in the one order both transports keep (whether it is served, what the transport read
 * off its wire, the transport's own bound on a reply, the charge), and return the count to
 * mint, the mint step itself, or (decode) the answer. The transport then mints (where it may
 * wait) and renders. What a caller asked for is made here into values nothing
 * below checks again ({@link Count}, {@link Tag}); the limits that come with an operation
 * (max-count, the most one StreamIds call may ask for, which formats must be configured) are
 * said here only.
 *
 * <p>What a transport keeps: reading its wire (HTTP's query and body, gRPC's fields), a bound
 * of its own on a reply's size (gRPC's, handed in as {@code fits}), and rendering. HTTP's
 * snowflake IDs are minted on the event loop ({@code http.LoopMint}), never through a step that
 * could wait; everything else here may run on any thread.
 */
public final class Calls {

    /** The largest count one StreamIds call may ask for. */
    public static final long MAX_STREAM_COUNT = 100_000_000L;

    private final RequestPipeline pipeline;
    private final IdService ids;
    private final CodesAndFormats formats;
    private final SegmentService segments;

    /** @param segments the segments served, or null when none are (then segment calls refuse) */
    public Calls(RequestPipeline pipeline, IdService ids, CodesAndFormats formats,
            SegmentService segments) {
        this.pipeline = pipeline;
        this.ids = ids;
        this.formats = formats;
        this.segments = segments;
    }

    /**
     * The first parse step of a call: whether {@code op} is served here (codes and flakes only
     * when configured). Checked after the token and before the transport reads the call's
     * parameters, then {@link #admit} or {@link #decodeCode}.
     *
     * @throws CodesAndFormats.NotConfiguredException when it is not
     */
    public void served(Operation op) {
        if (op == Operation.NEXT_CODES || op == Operation.DECODE_CODE) {
            formats.requireCodes();
        } else if (op == Operation.NEXT_FLAKES) {
            formats.requireFlakes();
        }
    }

    /**
     * Parse and charge a call that mints one item per count ({@link Operation#NEXT_IDS},
     * {@code NEXT_CODES}, {@code NEXT_UUIDS}, {@code NEXT_OBJECT_IDS}, {@code NEXT_FLAKES}),
     * once it is {@linkplain #served served}, its count as text (a query parameter): the count
     * (absent is 1, at most max-count), then the charge.
     *
     * @param count the count, or null when absent
     * @return how many to mint, charged
     * @throws ApiException when refused
     */
    public int admit(RequestPipeline.Caller caller, String count) {
        return charge(caller, RequestPipeline.count(count, ids.maxCount()));
    }

    /**
     * As {@link #admit(RequestPipeline.Caller, String)}, the count as a number (a protobuf
     * field).
     *
     * @param present whether the count was given
     * @param fits the transport's own bound on a reply: told the parsed count before it is
     *     charged, it throws to refuse it
     */
    public int admit(RequestPipeline.Caller caller, boolean present, long count,
            LongConsumer fits) {
        Count n = RequestPipeline.count(present, count, ids.maxCount());
        fits.accept(n.value());
        return charge(caller, n);
    }

    /**
     * Parse StreamIds' count: absent is 1, at most {@value #MAX_STREAM_COUNT}. Not charged
     * here: a stream charges each batch as it mints it, waiting rather than refused
     * ({@link RequestPipeline#chargeOrWait}).
     */
    public long streamCount(boolean present, long count) {
        return RequestPipeline.count(present, count, MAX_STREAM_COUNT).value();
    }

    /**
     * Parse and charge NextSegmentIds (HTTP's {@code GET /api/v1/segments/{tag}/ids}): segments
     * served, the tag, the count (absent is 1, at most max-count), then the charge.
     *
     * @param tag the tag as the caller wrote it (decoded)
     * @param count the count as text, or null when absent
     * @return the mint step: it may wait for the store (up to segment.fetch-timeout), so run it
     *     where waiting is allowed
     */
    public Supplier<long[]> segmentIds(RequestPipeline.Caller caller, String tag, String count) {
        SegmentService s = segments();
        Tag t = RequestPipeline.parse(() -> Tag.of(tag));
        return segmentIds(s, caller, t, RequestPipeline.count(count, s.maxCount()));
    }

    /**
     * As {@link #segmentIds(RequestPipeline.Caller, String, String)}, the count as a number.
     *
     * @param fits the transport's own bound on a reply, as for {@link #admit}
     */
    public Supplier<long[]> segmentIds(RequestPipeline.Caller caller, String tag,
            boolean present, long count, LongConsumer fits) {
        SegmentService s = segments();
        Tag t = RequestPipeline.parse(() -> Tag.of(tag));
        Count n = RequestPipeline.count(present, count, s.maxCount());
        fits.accept(n.value());
        return segmentIds(s, caller, t, n);
    }

    private Supplier<long[]> segmentIds(SegmentService s, RequestPipeline.Caller caller, Tag tag,
            Count n) {
        charge(caller, n);
        return () -> s.next(tag, n);
    }

    /**
     * Parse CreateSegment: segments served, then the tag, start and step (a null start or step
     * is the default).
     *
     * @return the create step: it asks the store, so run it where waiting is allowed
     */
    public Supplier<TagInfo> createSegment(String tag, Long start, Long step) {
        SegmentService s = segments();
        RequestPipeline.check(() -> s.checkCreate(tag, start, step));
        return () -> s.createChecked(tag, start, step);
    }

    /**
     * ListSegments: segments served.
     *
     * @return the list step: it asks the store, so run it where waiting is allowed
     */
    public Supplier<List<TagInfo>> listSegments() {
        return segments()::tags;
    }

    /**
     * Decode: the parts of an ID given as text (in a path or a query), read as {@code format}
     * (decimal, hex or base32) or, when null, any of them.
     *
     * @param missing the message when the text is absent, naming where it goes
     * @throws ApiException BAD_PARAMETER for an unknown format or no text, MALFORMED_ID for text
     *     that is no ID of this layout
     */
    public IdParts decode(String text, String format, String missing) {
        if (format != null) {
            RequestPipeline.check(() -> IdCodec.named(format));
        }
        RequestPipeline.required(text, missing);
        try {
            return ids.decode(text, format);
        } catch (IllegalArgumentException e) {
            throw new ApiException(Problem.MALFORMED_ID, e.getMessage());
        }
    }

    /**
     * Decode: the parts of an ID given as a number (a protobuf field).
     *
     * @param present whether the ID was given
     * @param missing the message when it was not, naming the field
     * @throws ApiException BAD_PARAMETER when absent, MALFORMED_ID when it is no ID of this
     *     layout
     */
    public IdParts decode(boolean present, long id, String missing) {
        if (!present) {
            throw new ApiException(Problem.BAD_PARAMETER, missing);
        }
        try {
            return ids.decode(id);
        } catch (IllegalArgumentException e) {
            throw new ApiException(Problem.MALFORMED_ID, e.getMessage());
        }
    }

    /**
     * DecodeCode: the ID and key version of a public code.
     *
     * @param missing the message when the code is absent, naming where it goes
     * @throws ApiException BAD_PARAMETER when absent, MALFORMED_CODE when it is no code of this
     *     server's key; {@link CodesAndFormats.NotConfiguredException} without codes
     */
    public CodesAndFormats.DecodedCode decodeCode(String code, String missing) {
        RequestPipeline.required(code, missing);
        try {
            return formats.decodeCode(code, ids.layout());
        } catch (IllegalArgumentException e) {
            throw new ApiException(Problem.MALFORMED_CODE, e.getMessage());
        }
    }

    private int charge(RequestPipeline.Caller caller, Count n) {
        pipeline.charge(caller, n.value());
        return (int) n.value();
    }

    private SegmentService segments() {
        if (segments == null) {
            throw new CodesAndFormats.NotConfiguredException("segments are not served here");
        }
        return segments;
    }
}

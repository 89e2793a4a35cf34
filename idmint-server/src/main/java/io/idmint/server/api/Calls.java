package io.idmint.server.api;

import io.idmint.FencedUuidV7;
import io.idmint.IdCodec;
import io.idmint.IdParts;
import io.idmint.Layout;
import io.idmint.TypedId;
import io.idmint.codes.CodeCodec;
import io.idmint.formats.TypeId;
import io.idmint.segment.SerialDefinition;
import io.idmint.server.mint.CodesAndFormats;
import io.idmint.server.mint.TimeWindows;
import io.idmint.spi.TagInfo;
import io.idmint.spi.UnknownTagException;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.LongConsumer;

/**
 * The operations, one method each (an overload per wire form of its input: text from an HTTP
 * query or path, a number from a protobuf field), as both transports call them once the
 * transport has authorised the call ({@link RequestPipeline#authorise}). Each runs its steps in
 * the one order both transports keep: whether it is served, what the transport read off its
 * wire, the transport's own bound on a reply, the charge, then the mint (or the store's work);
 * the transport renders what it returns. An operation that may wait (for the clock's next tick,
 * for the segment store) returns a completion, run where its transport allows waiting ({@link
 * Waits}, or for HTTP's snowflake IDs its event loop's {@link LoopMint}); one that cannot
 * returns its answer. What a caller asked for is made here into values nothing below checks
 * again ({@link Count}, {@link Tag}); the limits that come with an operation (max-count, the
 * most one StreamIds call may ask for, which formats must be configured) are said here only. A
 * refusal is thrown, before anything is charged or minted; a failure of the mint or the store
 * fails the completion.
 *
 * <p>What a transport keeps: reading its wire (HTTP's query and body, gRPC's fields), a bound
 * of its own on a reply's size (gRPC's, handed in as {@code fits}), and rendering.
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
     * The first step of a call whose transport reads parameters that can be refused (HTTP's
     * query): whether {@code op} is served here (codes and flakes only when configured), checked
     * after the token and before the parameters are read.
     *
     * @throws CodesAndFormats.NotConfiguredException when it is not
     */
    public void served(Operation op) {
        if (op == Operation.NEXT_CODES || op == Operation.DECODE_CODE) {
            formats.requireCodes();
        } else if (op == Operation.NEXT_FLAKES) {
            formats.requireFlakes();
        } else if (op == Operation.NEXT_FENCED_UUIDS) {
            try {
                FencedUuidV7.requireFits(ids.layout());
            } catch (IllegalArgumentException e) {
                throw new CodesAndFormats.NotConfiguredException("fenced UUIDv7s are not served: "
                        + e.getMessage());
            }
        }
    }

    /**
     * NextIds from an event loop: the count as text (absent is 1, at most max-count), the
     * charge, the mint.
     *
     * @param count the query's count, or null when absent
     * @param mint the loop's mint step
     * @return the IDs: at once (the loop's reused batch) or a tick later
     * @throws ApiException when refused
     */
    public CompletionStage<IdBatch> nextIds(RequestPipeline.Caller caller, String count,
            LoopMint mint) {
        return mint.mint(charge(caller, RequestPipeline.count(count, ids.maxCount())));
    }

    /**
     * NextIds from a thread that may wait: the count as a number.
     *
     * @param present whether the count was given
     * @param fits the transport's own bound on a reply: told the parsed count before it is
     *     charged, it throws to refuse it
     */
    public CompletionStage<IdBatch> nextIds(RequestPipeline.Caller caller, boolean present,
            long count, LongConsumer fits, Waits waits) {
        int n = charge(caller, count(present, count, ids.maxCount(), fits));
        return waits.run(() -> {
            long[] out = new long[n];
            ids.fill(out, n);
            return IdBatch.of(out);
        });
    }

    /** NextCodes from an event loop: as {@link #nextIds(RequestPipeline.Caller, String,
     * LoopMint)}, each ID as its public code. */
    public CompletionStage<String[]> nextCodes(RequestPipeline.Caller caller, String count,
            LoopMint mint) {
        CodeCodec codec = formats.requireCodes();
        return nextIds(caller, count, mint).thenApply(b -> codes(codec, b));
    }

    /** NextCodes from a thread that may wait: the count as a number, as for NextIds. */
    public CompletionStage<String[]> nextCodes(RequestPipeline.Caller caller, boolean present,
            long count, LongConsumer fits, Waits waits) {
        CodeCodec codec = formats.requireCodes();
        return nextIds(caller, present, count, fits, waits).thenApply(b -> codes(codec, b));
    }

    private static String[] codes(CodeCodec codec, IdBatch b) {
        String[] out = new String[b.count()];
        for (int i = 0; i < out.length; i++) {
            out[i] = codec.encode(b.ids()[i]);
        }
        return out;
    }

    /**
     * NextFencedUuids from an event loop: NextIds (the count as text), each ID as its fenced
     * UUIDv7 ({@link FencedUuidV7}), or with a type prefix as its TypeID.
     *
     * @param prefix the query's prefix, or null when absent
     */
    public CompletionStage<String[]> nextFencedUuids(RequestPipeline.Caller caller, String count,
            String prefix, LoopMint mint) {
        served(Operation.NEXT_FENCED_UUIDS);
        String p = prefix == null ? null : typePrefix(prefix);
        Layout layout = ids.layout();
        return nextIds(caller, count, mint).thenApply(b -> fencedUuids(layout, p, b));
    }

    /** NextFencedUuids from a thread that may wait: the count as a number; "" is no prefix. */
    public CompletionStage<String[]> nextFencedUuids(RequestPipeline.Caller caller,
            boolean present, long count, String prefix, LongConsumer fits, Waits waits) {
        served(Operation.NEXT_FENCED_UUIDS);
        String p = prefix.isEmpty() ? null : typePrefix(prefix);
        Layout layout = ids.layout();
        return nextIds(caller, present, count, fits, waits)
                .thenApply(b -> fencedUuids(layout, p, b));
    }

    private static String[] fencedUuids(Layout layout, String prefix, IdBatch b) {
        String[] out = new String[b.count()];
        for (int i = 0; i < out.length; i++) {
            UUID uuid = FencedUuidV7.of(b.ids()[i], layout);
            out[i] = prefix == null ? uuid.toString() : new TypeId(prefix, uuid).toString();
        }
        return out;
    }

    /**
     * NextTypedIds from an event loop: NextIds (the count as text), each ID as {@code prefix_}
     * and its 13 base32 symbols ({@link TypedId}).
     *
     * @param prefix the query's prefix, or null when absent (refused: it is required)
     */
    public CompletionStage<String[]> nextTypedIds(RequestPipeline.Caller caller, String count,
            String prefix, LoopMint mint) {
        String p = typePrefix(RequestPipeline.required(prefix, "missing prefix: give the type "
                + "prefix, such as prefix=ord"));
        return nextIds(caller, count, mint).thenApply(b -> typedIds(p, b));
    }

    /** NextTypedIds from a thread that may wait: the count as a number. */
    public CompletionStage<String[]> nextTypedIds(RequestPipeline.Caller caller, boolean present,
            long count, String prefix, LongConsumer fits, Waits waits) {
        String p = typePrefix(RequestPipeline.required(prefix, "missing prefix: set "
                + "NextTypedIdsRequest.prefix to the type prefix, such as \"ord\""));
        return nextIds(caller, present, count, fits, waits).thenApply(b -> typedIds(p, b));
    }

    private static String[] typedIds(String prefix, IdBatch b) {
        String[] out = new String[b.count()];
        for (int i = 0; i < out.length; i++) {
            out[i] = new TypedId(prefix, b.ids()[i]).toString();
        }
        return out;
    }

    /** A type prefix as given, checked by TypeID's rule. */
    private static String typePrefix(String prefix) {
        String bad = TypedId.prefixProblem(prefix);
        if (bad != null) {
            throw ApiException.badParameter(new IllegalArgumentException("type prefix '"
                    + prefix + "' " + bad));
        }
        return prefix;
    }

    /**
     * NextUuids, NextObjectIds or NextFlakes ({@code op}): served, the count as text, the
     * charge, then each minted in its text form (a UUID's, an ObjectId's and a flake's hex).
     * These never wait.
     */
    public String[] nextStrings(Operation op, RequestPipeline.Caller caller, String count) {
        served(op);
        return strings(op, charge(caller, RequestPipeline.count(count, ids.maxCount())));
    }

    /** As {@link #nextStrings(Operation, RequestPipeline.Caller, String)}, the count a number. */
    public String[] nextStrings(Operation op, RequestPipeline.Caller caller, boolean present,
            long count, LongConsumer fits) {
        served(op);
        return strings(op, charge(caller, count(present, count, ids.maxCount(), fits)));
    }

    private String[] strings(Operation op, int n) {
        String[] out = new String[n];
        switch (op) {
            case NEXT_UUIDS -> {
                for (int i = 0; i < n; i++) {
                    out[i] = formats.uuids().next().toString();
                }
            }
            case NEXT_OBJECT_IDS -> {
                for (int i = 0; i < n; i++) {
                    out[i] = formats.objectIds().next().toHexString();
                }
            }
            case NEXT_FLAKES -> {
                var flakes = formats.requireFlakes();
                for (int i = 0; i < n; i++) {
                    out[i] = flakes.next().toHexString();
                }
            }
            default -> throw new IllegalArgumentException(op + " mints no strings");
        }
        return out;
    }

    /**
     * Parse StreamIds' count: absent is 1, at most {@value #MAX_STREAM_COUNT}. Not charged
     * here: a stream charges each batch as it mints it ({@link #streamBatch}).
     */
    public long streamCount(boolean present, long count) {
        return RequestPipeline.count(present, count, MAX_STREAM_COUNT).value();
    }

    /**
     * One StreamIds batch, which waits rather than being refused: charges {@code n} IDs (at
     * most {@link RequestPipeline#mostPerCharge()}) if the caller's allowance holds them, and
     * then mints them into {@code out[0..n)}, every one above {@code above} (the stream's last
     * ID, or 0).
     *
     * @return 0 when minted, else the nanoseconds after which the allowance will hold them
     *     (nothing was taken or minted: ask again then)
     */
    public long streamBatch(RequestPipeline.Caller caller, long[] out, int n, long above) {
        long wait = pipeline.chargeOrWait(caller, n);
        if (wait == 0) {
            ids.fill(out, n, above);
        }
        return wait;
    }

    /**
     * NextSegmentIds (HTTP's {@code GET /api/v1/segments/{tag}/ids}): segments served, the tag,
     * the count as text (absent is 1, at most max-count), the charge, then the IDs from the
     * tag's buffers, which may wait for the store (up to segment.fetch-timeout).
     *
     * @param tag the tag as the caller wrote it (decoded)
     * @param count the count as text, or null when absent
     */
    public CompletionStage<long[]> segmentIds(RequestPipeline.Caller caller, String tag,
            String count, Waits waits) {
        SegmentService s = segments();
        Tag t = RequestPipeline.parse(() -> Tag.of(tag));
        return segmentIds(s, caller, t, RequestPipeline.count(count, s.maxCount()), waits);
    }

    /**
     * As {@link #segmentIds(RequestPipeline.Caller, String, String, Waits)}, the count as a
     * number.
     *
     * @param fits the transport's own bound on a reply, as for {@link #nextIds}
     */
    public CompletionStage<long[]> segmentIds(RequestPipeline.Caller caller, String tag,
            boolean present, long count, LongConsumer fits, Waits waits) {
        SegmentService s = segments();
        Tag t = RequestPipeline.parse(() -> Tag.of(tag));
        return segmentIds(s, caller, t, count(present, count, s.maxCount(), fits), waits);
    }

    /**
     * Leaf's segment call ({@code leaf.compat=strict}): one ID of the tag Leaf's path names.
     * A key no tag can be is a key no table row has: the completion fails with
     * {@link UnknownTagException}, as for a tag the store lacks, and nothing is charged.
     */
    public CompletionStage<long[]> leafSegmentId(RequestPipeline.Caller caller, String key,
            Waits waits) {
        SegmentService s = segments();
        Tag t = Tag.orNull(key);
        if (t == null) {
            return CompletableFuture.failedFuture(new UnknownTagException(key, "no segment tag '"
                    + key + "'"));
        }
        return segmentIds(s, caller, t, Count.ONE, waits);
    }

    /**
     * NextSegmentCodes ({@code GET /api/v1/segments/{tag}/codes}): segments and codes served,
     * the tag, the count as text, the charge, then the codes of the tag's next values.
     */
    public CompletionStage<String[]> segmentCodes(RequestPipeline.Caller caller, String tag,
            String count, Waits waits) {
        SegmentService s = segments();
        s.requireCodes();
        Tag t = RequestPipeline.parse(() -> Tag.of(tag));
        Count n = RequestPipeline.count(count, s.maxCount());
        charge(caller, n);
        return waits.run(() -> s.nextCodes(t, n));
    }

    /** As the HTTP form, the count a number and {@code fits} the transport's reply bound. */
    public CompletionStage<String[]> segmentCodes(RequestPipeline.Caller caller, String tag,
            boolean present, long count, LongConsumer fits, Waits waits) {
        SegmentService s = segments();
        s.requireCodes();
        Tag t = RequestPipeline.parse(() -> Tag.of(tag));
        Count n = count(present, count, s.maxCount(), fits);
        charge(caller, n);
        return waits.run(() -> s.nextCodes(t, n));
    }

    /**
     * DecodeSegmentCode ({@code GET /api/v1/segments/{tag}/codes/{code}}): the value a code of
     * the tag stands for; arithmetic only, the store is not asked.
     */
    public SegmentService.DecodedCode decodeSegmentCode(String tag, String code,
            String missing) {
        SegmentService s = segments();
        s.requireCodes();
        Tag t = RequestPipeline.parse(() -> Tag.of(tag));
        RequestPipeline.required(code, missing);
        try {
            return s.decodeCode(t, code);
        } catch (IllegalArgumentException e) {
            throw new ApiException(Problem.MALFORMED_CODE, e.getMessage());
        }
    }

    private CompletionStage<long[]> segmentIds(SegmentService s, RequestPipeline.Caller caller,
            Tag tag, Count n, Waits waits) {
        charge(caller, n);
        return waits.run(() -> s.next(tag, n));
    }

    /**
     * CreateSegment: segments served, then the tag, start and step (a null start or step is
     * the default), then the store's create.
     */
    public CompletionStage<TagInfo> createSegment(String tag, Long start, Long step,
            Waits waits) {
        SegmentService s = segments();
        RequestPipeline.check(() -> s.checkCreate(tag, start, step));
        return waits.run(() -> s.createChecked(tag, start, step));
    }

    /**
     * NextSerials ({@code GET /api/v1/serials/{name}}): segments served, the name, the count as
     * text (absent is 1, at most max-count), the charge, then the values, which may wait for the
     * store.
     */
    public CompletionStage<String[]> nextSerials(RequestPipeline.Caller caller, String name,
            String count, Waits waits) {
        SegmentService s = segments();
        String n = RequestPipeline.parse(() -> SegmentService.checkSerialName(name));
        Count c = RequestPipeline.count(count, s.maxCount());
        charge(caller, c);
        return waits.run(() -> s.nextSerials(n, c));
    }

    /** As the HTTP form, the count a number and {@code fits} the transport's reply bound. */
    public CompletionStage<String[]> nextSerials(RequestPipeline.Caller caller, String name,
            boolean present, long count, LongConsumer fits, Waits waits) {
        SegmentService s = segments();
        String n = RequestPipeline.parse(() -> SegmentService.checkSerialName(name));
        Count c = count(present, count, s.maxCount(), fits);
        charge(caller, c);
        return waits.run(() -> s.nextSerials(n, c));
    }

    /**
     * DefineSerial: segments served, the definition checked as a whole (400 naming what is
     * wrong), then the store's define. Nulls take the definition's defaults.
     */
    public CompletionStage<SerialDefinition> defineSerial(String name, String period,
            String zone, String template, Long first, Long maxRate, Long step, Waits waits) {
        SegmentService s = segments();
        SerialDefinition d = RequestPipeline.parse(() -> SegmentService.serialDefinition(name,
                period, zone, template, first, maxRate, step));
        return waits.run(() -> s.define(d));
    }

    /** ListSerials: segments served, then the store's definitions. */
    public CompletionStage<List<SerialDefinition>> listSerials(Waits waits) {
        return waits.run(segments()::serialDefinitions);
    }

    /** ListSegments: segments served, then the store's list. */
    public CompletionStage<List<TagInfo>> listSegments(Waits waits) {
        return waits.run(segments()::tags);
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
     * Range: the IDs of the time window {@code [from, to)} as query bounds: the layout's IDs, or
     * any UUIDv7 or ObjectId ({@code kind}).
     *
     * @param from the window's start: an ISO-8601 instant or a date (midnight UTC)
     * @param to its end, exclusive, written the same way
     * @param kind snowflake (or null), uuid7 or objectid
     * @param fromName how the message names {@code from}, e.g. {@code from} or {@code
     *     RangeRequest.from}; {@code to}'s is the same with {@code to}
     * @throws ApiException BAD_PARAMETER naming the value: absent or unreadable times, an
     *     unknown kind, a window that holds no ID (empty, before the epoch, past the end)
     */
    public TimeWindows.Window range(String from, String to, String kind, String fromName,
            String toName) {
        RequestPipeline.required(from, "missing " + fromName + ": the window's start, such as "
                + "2026-11-24 or 2026-11-24T00:00:00Z");
        RequestPipeline.required(to, "missing " + toName + ": the window's end, exclusive");
        try {
            return TimeWindows.of(ids.layout(), kind, TimeWindows.instant(fromName, from),
                    TimeWindows.instant(toName, to));
        } catch (IllegalArgumentException e) {
            throw new ApiException(Problem.BAD_PARAMETER, e.getMessage());
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

    /** A count as a number, then the transport's bound on a reply. */
    private static Count count(boolean present, long count, long max, LongConsumer fits) {
        Count n = RequestPipeline.count(present, count, max);
        fits.accept(n.value());
        return n;
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

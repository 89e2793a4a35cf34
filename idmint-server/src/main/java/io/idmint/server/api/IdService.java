package io.idmint.server.api;

import io.idmint.FencedUuidV7;
import io.idmint.GeneratorStatus;
import io.idmint.IdCodec;
import io.idmint.IdGenerator;
import io.idmint.IdParts;
import io.idmint.IdUnavailableException;
import io.idmint.Layout;
import io.idmint.server.config.Config;
import io.idmint.server.mint.CodesAndFormats;
import java.util.function.Consumer;
import java.util.function.LongConsumer;

/**
 * What every transport mints snowflake IDs with, once (the mint step of the
 * {@link RequestPipeline}). The parse steps check the caller's input first; an
 * {@link IllegalArgumentException} from here is then a bug (HTTP 500, gRPC INTERNAL), except
 * from {@link #decode}, which its callers map to 400 / INVALID_ARGUMENT. No ID available throws
 * {@link IdUnavailableException} (HTTP 503 + Retry-After, gRPC UNAVAILABLE). A rejected call
 * issues nothing.
 */
public final class IdService {

    /** The largest max-count a server may be configured with. */
    public static final int MAX_COUNT_LIMIT = Config.MAX_COUNT_LIMIT;

    private final IdGenerator ids;
    private final int maxCount;
    private final LongConsumer issued;
    private final Consumer<IdUnavailableException> refused;

    /**
     * @param issued told how many IDs each successful call issued (for metrics); it runs on the
     *     caller's thread and must return quickly
     * @param refused told of each call the generator refused (for the log), on the caller's
     *     thread, before it is thrown on
     */
    public IdService(IdGenerator ids, int maxCount, LongConsumer issued,
            Consumer<IdUnavailableException> refused) {
        if (maxCount < 1 || maxCount > MAX_COUNT_LIMIT) {
            throw new IllegalArgumentException("max-count must be from 1 to " + MAX_COUNT_LIMIT
                    + ", got " + maxCount);
        }
        this.ids = ids;
        this.maxCount = maxCount;
        this.issued = issued;
        this.refused = refused;
    }

    /**
     * Fills {@code out[from..k)} with what can be minted without waiting for the clock and
     * returns {@code k} (see {@link IdGenerator#nextIdsNow}): for an event loop, which asks for
     * the rest a tick later.
     */
    public int fillNow(long[] out, int from, int to) {
        int k;
        try {
            k = ids.nextIdsNow(out, from, to);
        } catch (IdUnavailableException e) {
            refused.accept(e);
            throw e;
        }
        if (k > from) {
            issued.accept(k - from);
        }
        return k;
    }

    /** The largest count one call may ask for. */
    public int maxCount() {
        return maxCount;
    }

    /**
     * Fills {@code out[0..n)} with new IDs: for streams whose total may exceed max-count, and for
     * callers that reuse one array (check the count first).
     */
    public void fill(long[] out, int n) {
        try {
            ids.nextIds(out, 0, n);
        } catch (IdUnavailableException e) {
            refused.accept(e);
            throw e;
        }
        issued.accept(n);
    }

    /**
     * As {@link #fill(long[], int)}, every ID above {@code above} (the last ID the caller got,
     * or 0): keeps a stream increasing when its batches are minted on different threads.
     */
    public void fill(long[] out, int n, long above) {
        try {
            ids.nextIds(out, 0, n, above);
        } catch (IdUnavailableException e) {
            refused.accept(e);
            throw e;
        }
        issued.accept(n);
    }

    /**
     * The parts of an ID given as text: decimal, hex ({@code 0x} optional with 16 digits) or
     * base32 (see {@link IdCodec#parseAny}); or of the ID a fenced UUIDv7 carries, given as a
     * UUID (36 characters with hyphens) or a TypeID ({@code prefix_} and 26 symbols).
     *
     * @param format decimal, hex or base32 to read the text only that way, or null for any
     * @throws IllegalArgumentException when it is not an ID of this layout, is valid in two
     *     forms and no format is given, or the format is unknown
     */
    public IdParts decode(String text, String format) {
        if (text != null && text.length() > 1 && text.charAt(0) == '-'
                && text.chars().skip(1).allMatch(c -> c >= '0' && c <= '9')) {
            throw new IllegalArgumentException("'" + text + "' is negative; idmint IDs are "
                    + "positive");
        }
        if (format == null && text != null && CodesAndFormats.isUuidText(text)) {
            return decode(FencedUuidV7.idOf(CodesAndFormats.uuid7(text), ids.layout()));
        }
        return decode(format == null ? IdCodec.parseAny(text, ids.layout())
                : IdCodec.named(format).parse(text));
    }

    /** The parts of an ID. @throws IllegalArgumentException when it is not an ID of this layout */
    public IdParts decode(long id) {
        return ids.layout().decode(id);
    }

    public Layout layout() {
        return ids.layout();
    }

    public GeneratorStatus status() {
        return ids.status();
    }
}

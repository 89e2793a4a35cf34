package io.idmint.server.api;

import io.idmint.IdUnavailableException;
import io.idmint.codes.CodeCodec;
import io.idmint.segment.SegmentGenerator;
import io.idmint.segment.SegmentStats;
import io.idmint.segment.Segments;
import io.idmint.segment.Serial;
import io.idmint.segment.SerialDefinition;
import io.idmint.segment.SerialStats;
import io.idmint.segment.Serials;
import io.idmint.server.config.Config;
import io.idmint.server.mint.CodesAndFormats;
import io.idmint.spi.RangeStore;
import io.idmint.spi.RegistryException;
import io.idmint.spi.TagInfo;
import io.idmint.spi.UnknownTagException;
import io.idmint.spi.support.Names;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BiFunction;
import java.util.function.Consumer;

/**
 * Segments (docs/segments.md) as every transport serves them, once: the range store, the
 * generator on it, and the checks. What callers get:
 *
 * <table>
 *   <caption>What maps to what</caption>
 *   <tr><th>Thrown</th><th>HTTP</th><th>gRPC</th><th>CLI</th></tr>
 *   <tr><td>{@link IllegalArgumentException}: bad tag name, count, start or step ({@link
 *       Calls} checks these first: {@link #checkTag}, {@link #checkCreate}, the count's
 *       parse), or {@link StoreRefusedException}: a valid tag the store cannot hold; any
 *       other is a bug</td>
 *       <td>400</td><td>INVALID_ARGUMENT</td><td>exit 2</td></tr>
 *   <tr><td>{@link UnknownTagException} (an {@code IllegalArgumentException}): no such tag and
 *       segment.auto-create off</td><td>404</td><td>NOT_FOUND</td><td>-</td></tr>
 *   <tr><td>{@link TagExistsException} (an {@code IllegalArgumentException}): create of a tag
 *       that exists</td><td>409</td><td>ALREADY_EXISTS</td><td>exit 2</td></tr>
 *   <tr><td>{@link IdUnavailableException}: both buffers empty past segment.fetch-timeout</td>
 *       <td>503 + Retry-After</td><td>UNAVAILABLE</td><td>-</td></tr>
 *   <tr><td>{@link TooManyTagsException}: a tag past segment.max-tags</td>
 *       <td>429</td><td>RESOURCE_EXHAUSTED</td><td>-</td></tr>
 *   <tr><td>{@link StoreUnavailableException}: the store did not answer a create or list</td>
 *       <td>503 + Retry-After</td><td>UNAVAILABLE</td><td>exit 1</td></tr>
 * </table>
 *
 * <p>Nothing is issued or created by a call that throws.
 */
public final class SegmentService implements AutoCloseable {

    /** Where a tag created without a start begins, as in Leaf. */
    public static final long DEFAULT_START = 1;
    /**
     * The largest start a tag may be created with: it leaves 2^61 values below 2^62, where the
     * generator stops serving a tag (its cursors must stay far from overflow).
     */
    static final long MAX_START = 1L << 61;
    /** When a caller may try again after the store did not answer. */
    static final Duration RETRY_AFTER = Duration.ofSeconds(1);
    private final RangeStore store;
    private final SegmentGenerator ids;
    private final int maxCount;
    private final long defaultStep;
    private final int maxTags;
    /**
     * The tags this node has served or is serving: each holds buffers, meters and a line of
     * the status page, so there are at most {@code maxTags} of them.
     */
    private final Set<String> served = ConcurrentHashMap.newKeySet();
    private final LongAdder refusedTags = new LongAdder();
    /** Serials (docs/serials.md) on the same store: their counters are its tags. */
    private final Serials serials;
    private final BiFunction<Integer, String, CodeCodec> codecs;
    private final int codeBits;
    /** The codec of each tag whose codes were asked for: the tag is its tweak. */
    private final Map<String, CodeCodec> tagCodecs = new ConcurrentHashMap<>();

    /**
     * @param store where tags are created and listed; closed with this
     * @param ids the generator on {@code store}; closed with this
     * @param maxCount the largest count one call may ask for
     * @param defaultStep the step of tags created without one
     * @param maxTags the most tags served (segment.max-tags)
     */
    SegmentService(RangeStore store, SegmentGenerator ids, int maxCount, long defaultStep,
            int maxTags) {
        this(store, ids, maxCount, defaultStep, maxTags, null, 40);
    }

    /**
     * @param codecs codecs of counters by bits and tweak ({@link CodesAndFormats#counterCodecs}):
     *     serials' {@code {code:BITS}} and segment codes; null when codes are not configured
     * @param codeBits the width of segment codes (codes.segment-bits)
     */
    SegmentService(RangeStore store, SegmentGenerator ids, int maxCount, long defaultStep,
            int maxTags, BiFunction<Integer, String, CodeCodec> codecs, int codeBits) {
        this.store = store;
        this.ids = ids;
        this.maxCount = maxCount;
        this.defaultStep = defaultStep;
        this.maxTags = maxTags;
        this.codecs = codecs;
        this.codeBits = codeBits;
        this.serials = serials(store, codecs);
    }

    /**
     * Serials on {@code store} whose templates may write a counter's code with {@code codecs}
     * ({@link CodesAndFormats#counterCodecs}, null for none): the server's and the CLI's.
     */
    public static Serials serials(RangeStore store, BiFunction<Integer, String, CodeCodec> codecs) {
        Serials.Builder b = Serials.newBuilder().store(store);
        return (codecs == null ? b
                : b.codes((serial, bits) -> codecs.apply(bits, serial)::encode)).build();
    }

    /**
     * Opens the configured store (a bad URI fails here), builds the generator on it, and has
     * the store asked for its tags on a thread of its own ({@link LazyRangeStore#warmUp}), so
     * that the first segment call finds it connected and its table created, while the server
     * does not wait for it. A store that does not answer does not stop this: it gets a warning,
     * and segment calls answer 503 until it answers.
     *
     * @throws IllegalArgumentException naming a bad setting (store URI, steps, durations)
     */
    public static SegmentService open(Config config, Consumer<String> warn) {
        LazyRangeStore store = LazyRangeStore.open(config.get(Config.SEGMENT_STORE),
                config.get(Config.DATA_DIR));
        SegmentGenerator ids;
        try {
            Segments builder = Segments.newBuilder().store(store)
                    .step(config.get(Config.SEGMENT_STEP))
                    .targetDuration(config.get(Config.SEGMENT_TARGET_DURATION))
                    .fetchTimeout(config.get(Config.SEGMENT_FETCH_TIMEOUT))
                    .autoCreate(config.get(Config.SEGMENT_AUTO_CREATE))
                    .order(config.get(Config.SEGMENT_ORDER));
            // Unset bounds stay the builder's, which widen to take in segment.step.
            if (config.get(Config.SEGMENT_MIN_STEP) != null) {
                builder.minStep(config.get(Config.SEGMENT_MIN_STEP));
            }
            if (config.get(Config.SEGMENT_MAX_STEP) != null) {
                builder.maxStep(config.get(Config.SEGMENT_MAX_STEP));
            }
            ids = builder.build();
        } catch (RuntimeException e) {
            store.close();
            throw e;
        }
        SegmentService service = new SegmentService(store, ids, config.get(Config.MAX_COUNT),
                config.get(Config.SEGMENT_STEP), config.get(Config.SEGMENT_MAX_TAGS),
                CodesAndFormats.counterCodecs(config), config.get(Config.CODES_SEGMENT_BITS));
        store.warmUp(warn);
        return service;
    }

    /** The warning for a store that cannot be opened or does not answer. */
    static String notAnswering(Exception e) {
        return "the segment store does not answer yet (" + e.getMessage()
                + "); segment calls answer 503 until it does";
    }

    /** The largest count one call may ask for. */
    public int maxCount() {
        return maxCount;
    }

    /** One new ID of {@code tag}. */
    public long next(Tag tag) {
        return next(tag, Count.ONE)[0];
    }

    /**
     * {@code count} new IDs of {@code tag}, increasing. Both were checked where they were made,
     * the count against {@link #maxCount()}.
     */
    public long[] next(Tag checked, Count count) {
        String tag = checked.name();
        long[] out = new long[(int) count.value()];
        boolean added = admit(tag);
        try {
            ids.next(tag, out, 0, out.length);
        } catch (UnknownTagException e) {
            if (added) {
                served.remove(tag);
            }
            // What to do, on this server's API (the generator knows no transport).
            throw new UnknownTagException(tag, "segment tag '" + tag + "' does not exist; create "
                    + "it with POST /api/v1/segments and the body {\"tag\":\"" + tag + "\"}, "
                    + "or turn on segment.auto-create");
        } catch (IllegalArgumentException e) {
            throw storeRefused(e);
        }
        return out;
    }

    /**
     * The public codes of {@code count} new values of {@code tag}: FF1 over {@code codeBits}
     * bits, the tag as tweak, so every code of a tag has one length. Codes are checked to be
     * configured before a value is taken.
     *
     * @throws CodesAndFormats.NotConfiguredException without a codes key, or for a value past
     *     the width (the values taken by the call are then lost, as with any failed call)
     */
    public String[] nextCodes(Tag checked, Count count) {
        CodeCodec codec = codec(checked.name());
        long[] values = next(checked, count);
        String[] out = new String[values.length];
        for (int i = 0; i < values.length; i++) {
            if (values[i] < 0 || values[i] >>> codeBits != 0) {
                throw new CodesAndFormats.NotConfiguredException("segment tag '"
                        + checked.name() + "' is at " + values[i] + ", past the values below 2^"
                        + codeBits + " that codes.segment-bits=" + codeBits + " gives codes; "
                        + "raise codes.segment-bits (wider codes are longer: " + (2
                        + (codeBits + 5) / 5) + " symbols or more)");
            }
            out[i] = codec.encode(values[i]);
        }
        return out;
    }

    /** What a segment code stands for. */
    public record DecodedCode(String tag, String code, long value, int keyVersion) {}

    /**
     * The value a code of {@link #nextCodes} stands for.
     *
     * @throws IllegalArgumentException naming what is wrong with the code
     * @throws CodesAndFormats.NotConfiguredException without a codes key
     */
    public DecodedCode decodeCode(Tag checked, String code) {
        CodeCodec codec = codec(checked.name());
        long value = codec.decode(code);
        return new DecodedCode(checked.name(), CodesAndFormats.canonical(code), value,
                codec.keyVersion(code));
    }

    /**
     * Checks that segment codes are served, before a call is charged.
     *
     * @throws CodesAndFormats.NotConfiguredException without a codes key
     */
    public void requireCodes() {
        if (codecs == null) {
            throw new CodesAndFormats.NotConfiguredException(
                    CodesAndFormats.CODES_NOT_CONFIGURED);
        }
    }

    private CodeCodec codec(String tag) {
        requireCodes();
        return tagCodecs.computeIfAbsent(tag, t -> codecs.apply(codeBits, t));
    }

    /**
     * Counts {@code tag} among the tags served, unless it is there already.
     *
     * @return whether it was added
     * @throws TooManyTagsException when it is new and {@code maxTags} are served already
     */
    private boolean admit(String tag) {
        if (served.contains(tag)) {
            return false;
        }
        if (served.size() >= maxTags) {
            refusedTags.increment();
            throw new TooManyTagsException("this server serves at most " + maxTags
                    + " segment tags (segment.max-tags) and serves that many; '" + tag
                    + "' is not one of them");
        }
        return served.add(tag);
    }

    /**
     * Creates {@code tag}; a null start is {@value #DEFAULT_START}, a null step segment.step.
     *
     * @return the tag as created
     */
    public TagInfo create(String tag, Long start, Long step) {
        checkCreate(tag, start, step);
        return createChecked(tag, start, step);
    }

    /**
     * Checks what {@link #create(String, Long, Long)} checks before it asks the store.
     *
     * @throws IllegalArgumentException naming a bad tag name, start or step
     */
    void checkCreate(String tag, Long start, Long step) {
        checkNew(tag, start == null ? DEFAULT_START : start, step == null ? defaultStep : step);
    }

    /**
     * {@link #create(String, Long, Long)} of what {@link #checkCreate} passed already (the parse
     * step of {@link Calls#createSegment}): asks the store only.
     */
    TagInfo createChecked(String tag, Long start, Long step) {
        return insert(store, tag, start == null ? DEFAULT_START : start,
                step == null ? defaultStep : step);
    }

    /** Every tag in the store, sorted by tag. */
    public List<TagInfo> tags() {
        return tags(store);
    }

    /**
     * {@code count} next values of serial {@code name}, in the order taken.
     *
     * @throws UnknownTagException when the store defines no such serial
     * @throws IdUnavailableException when the store gave no range
     * @throws StoreUnavailableException when the store did not answer for its definition
     */
    public String[] nextSerials(String name, Count count) {
        return nextSerials(serials, name, (int) count.value());
    }

    /** As {@link #nextSerials(String, Count)}, from {@code serials} (the CLI's own). */
    public static String[] nextSerials(Serials serials, String name, int count) {
        Serial serial;
        try {
            serial = serials.serial(name);
        } catch (RegistryException e) {
            throw failure(e, name);
        } catch (UnsupportedOperationException e) {
            throw notKept(e);
        } catch (IllegalStateException e) {
            throw new CodesAndFormats.NotConfiguredException(e.getMessage());
        }
        String[] out = new String[count];
        serial.next(out, 0, out.length);
        return out;
    }

    /**
     * Stores a serial's definition; the same one again changes nothing.
     *
     * @throws TagExistsException when another definition is stored under its name
     * @throws StoreUnavailableException when the store did not answer
     */
    public SerialDefinition define(SerialDefinition definition) {
        return define(serials, definition);
    }

    /** As {@link #define(SerialDefinition)}, in {@code serials} (the CLI's own). */
    public static SerialDefinition define(Serials serials, SerialDefinition definition) {
        try {
            serials.define(definition);
            return definition;
        } catch (IllegalStateException e) {
            throw new CodesAndFormats.NotConfiguredException(e.getMessage());
        } catch (RegistryException e) {
            if (e.kind() == RegistryException.Kind.CONFLICT) {
                throw new TagExistsException(e.getMessage());
            }
            throw failure(e, definition.name());
        } catch (UnsupportedOperationException e) {
            throw notKept(e);
        }
    }

    /** Every serial the store defines, sorted by name. */
    public List<SerialDefinition> serialDefinitions() {
        return serialDefinitions(serials);
    }

    /** As {@link #serialDefinitions()}, from {@code serials} (the CLI's own). */
    public static List<SerialDefinition> serialDefinitions(Serials serials) {
        try {
            return serials.definitions();
        } catch (RegistryException e) {
            throw failure(e, null);
        } catch (UnsupportedOperationException e) {
            throw notKept(e);
        }
    }

    /** What this node did with each serial it served, for metrics and the status page. */
    public List<SerialStats> serialStats() {
        return serials.stats();
    }

    /**
     * A serial's name as given, checked by the definition's rule.
     *
     * @throws IllegalArgumentException naming the name and the rule
     */
    static String checkSerialName(String name) {
        if (name == null || name.isEmpty()) {
            throw new IllegalArgumentException("missing serial name");
        }
        SerialDefinition.newBuilder(name);
        return name;
    }

    /**
     * A serial's definition from a transport's fields; nulls take the defaults.
     *
     * @throws IllegalArgumentException naming what is wrong with it
     */
    public static SerialDefinition serialDefinition(String name, String period, String zone,
            String template, Long first, Long maxRate, Long step) {
        SerialDefinition.Builder b = SerialDefinition.newBuilder(checkSerialName(name));
        if (period != null && !period.isEmpty()) {
            b.period(io.idmint.segment.SerialPeriod.parse(period));
        }
        if (zone != null && !zone.isEmpty()) {
            b.zone(zone);
        }
        if (template == null || template.isEmpty()) {
            throw new IllegalArgumentException("serial '" + name + "' needs a template, such as "
                    + "INV-{date:yyyyMMdd}-{counter:6}");
        }
        b.template(template);
        if (first != null) {
            b.first(first);
        }
        if (maxRate != null) {
            b.maxRate(maxRate);
        }
        if (step != null) {
            b.step(step);
        }
        return b.build();
    }

    /** A store without definitions (Leaf's table): serials are not served, saying why. */
    private static RuntimeException notKept(UnsupportedOperationException e) {
        return new CodesAndFormats.NotConfiguredException(e.getMessage());
    }

    /** Calls refused since start for a tag past segment.max-tags. */
    public long refusedTags() {
        return refusedTags.sum();
    }

    /** The counters of every tag served since start, for metrics and the status page. */
    public List<SegmentStats> stats() {
        return ids.stats();
    }

    /**
     * Creates {@code tag} in {@code store} so that its first ID is {@code start} and its ranges
     * start at {@code step} values.
     *
     * @throws IllegalArgumentException naming a bad tag name, start or step
     * @throws TagExistsException when the tag exists
     * @throws StoreUnavailableException when the store did not answer
     */
    public static TagInfo create(RangeStore store, String tag, long start, long step) {
        checkNew(tag, start, step);
        return insert(store, tag, start, step);
    }

    private static TagInfo insert(RangeStore store, String tag, long start, long step) {
        try {
            store.create(tag, start, step);
        } catch (RegistryException e) {
            throw failure(e, tag);
        } catch (IllegalArgumentException e) {
            throw storeRefused(e);
        }
        return new TagInfo(tag, start, step);
    }

    private static void checkNew(String tag, long start, long step) {
        checkTag(tag);
        if (start < 0 || start > MAX_START) {
            throw new IllegalArgumentException("start must be from 0 to " + MAX_START
                    + " (2^61), got " + start);
        }
        if (step < 1 || step > RangeStore.MAX_STEP) {
            throw new IllegalArgumentException("step must be from 1 to " + RangeStore.MAX_STEP
                    + " (2^40), got " + step);
        }
    }

    /**
     * Every tag in {@code store}, sorted by tag.
     *
     * @throws StoreUnavailableException when the store did not answer
     */
    public static List<TagInfo> tags(RangeStore store) {
        try {
            return store.tags();
        } catch (RegistryException e) {
            throw failure(e, null);
        }
    }

    /**
     * A valid tag the store cannot hold (idmint's SQL table holds 64 characters): a bad
     * argument, answered 400 / INVALID_ARGUMENT like the checks before it.
     */
    private static IllegalArgumentException storeRefused(IllegalArgumentException e) {
        return e instanceof TagExistsException ? e : new StoreRefusedException(e.getMessage(), e);
    }

    private static RuntimeException failure(RegistryException e, String tag) {
        return switch (e.kind()) {
            case CONFLICT -> new TagExistsException("segment tag '" + tag + "' exists already");
            case UNAVAILABLE -> new StoreUnavailableException("the segment store did not answer: "
                    + e.getMessage(), e);
            default -> new IllegalStateException("segment store: " + e.getMessage(), e);
        };
    }

    /**
     * Checks a tag name as the generator does, before anything is charged or issued.
     *
     * @throws IllegalArgumentException naming the tag and {@link Names#TAG_RULE}
     */
    static void checkTag(String tag) {
        Names.requireTag(tag);
    }

    /** Stops the generator's fetches, then closes the store. */
    @Override
    public void close() {
        try {
            ids.close();
        } finally {
            store.close();
        }
    }

    /** A valid name the store cannot hold: HTTP 400, gRPC INVALID_ARGUMENT, CLI exit 2. */
    static final class StoreRefusedException extends IllegalArgumentException {
        private static final long serialVersionUID = 1L;

        StoreRefusedException(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /** A tag past segment.max-tags: HTTP 429, gRPC RESOURCE_EXHAUSTED. */
    static final class TooManyTagsException extends IllegalStateException {
        private static final long serialVersionUID = 1L;

        TooManyTagsException(String message) {
            super(message);
        }
    }

    /** Create of a tag that exists: HTTP 409, gRPC ALREADY_EXISTS, CLI exit 2. */
    static final class TagExistsException extends IllegalArgumentException {
        private static final long serialVersionUID = 1L;

        TagExistsException(String message) {
            super(message);
        }
    }

    /**
     * The store did not answer a create or list: HTTP 503 + Retry-After, gRPC UNAVAILABLE, CLI
     * exit 1. A create may or may not have taken effect; trying again is safe (it answers
     * that the tag exists if it did).
     */
    static final class StoreUnavailableException extends IllegalStateException {
        private static final long serialVersionUID = 1L;

        StoreUnavailableException(String message, Throwable cause) {
            super(message, cause);
        }
    }
}

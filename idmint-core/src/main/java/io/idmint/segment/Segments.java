package io.idmint.segment;

import static io.idmint.spi.support.Checks.requireArgument;
import static io.idmint.spi.support.Checks.requireAtMost;
import static io.idmint.spi.support.Checks.requirePositive;
import static io.idmint.spi.support.Checks.requireUnset;

import io.idmint.IdUnavailableException;
import io.idmint.TimeSource;
import io.idmint.spi.RangeStore;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Executor;

/**
 * Builds segment generators. Each setter validates its value at once and may be called only
 * once; {@link #build()} resolves the defaults and returns a running {@link SegmentGenerator}
 * whose fetch threads it owns until {@link SegmentGenerator#close()}.
 *
 * <pre>{@code
 * try (SegmentGenerator ids = Segments.newBuilder().store(store).autoCreate(true).build()) {
 *     long order = ids.next("order");
 *     SegmentSequence users = ids.sequence("user");   // a handle: no look-up by name
 *     long user = users.next();
 * }
 * }</pre>
 *
 * <p>The step (how many IDs one allocation takes) starts at the step stored with the tag and
 * adapts as in Leaf: when a range lasted less than the target duration the next one is twice as
 * large, when it lasted more than twice the target it is half as large, always within
 * {@code [minStep, maxStep]} widened to take in the tag's own step.
 */
public final class Segments {

    static final long DEFAULT_STEP = 1_000;
    static final long DEFAULT_MIN_STEP = 100;
    static final long DEFAULT_MAX_STEP = 1_000_000;
    static final Duration DEFAULT_TARGET = Duration.ofMinutes(1);
    static final Duration DEFAULT_FETCH_TIMEOUT = Duration.ofSeconds(1);
    /**
     * The longest {@link #targetDuration}: a range meant to last longer would keep a step
     * chosen for traffic long gone (the server's configuration reads it too).
     */
    public static final Duration MAX_TARGET = Duration.ofHours(1);
    /** The longest {@link #fetchTimeout}: a caller held longer is better off failing. */
    public static final Duration MAX_FETCH_TIMEOUT = Duration.ofMinutes(1);

    private RangeStore store;
    private TimeSource timeSource;
    private Long step;
    private Long minStep;
    private Long maxStep;
    private Duration target;
    private Duration fetchTimeout;
    private Boolean autoCreate;
    private SegmentOrder order;
    private Executor fetchExecutor;

    private Segments() {
    }

    public static Segments newBuilder() {
        return new Segments();
    }

    /** Where ranges are leased. Required; it stays the caller's to close. */
    public Segments store(RangeStore store) {
        requireUnset(this.store, "store");
        this.store = Objects.requireNonNull(store, "store");
        return this;
    }

    /** Where time comes from, for step adaptation and fetch timeouts; default the system's. */
    public Segments timeSource(TimeSource timeSource) {
        requireUnset(this.timeSource, "timeSource");
        this.timeSource = Objects.requireNonNull(timeSource, "timeSource");
        return this;
    }

    /**
     * The step of tags created without one: by auto-creation here, and by {@code idmint segment
     * create} (key {@code segment.step}); default 1,000. A tag's first allocation takes the step
     * stored with it.
     */
    public Segments step(long step) {
        requireUnset(this.step, "step");
        this.step = requireStep(step, "segment.step");
        return this;
    }

    /** The smallest step adaptation may choose (key {@code segment.min-step}); default 100. */
    public Segments minStep(long step) {
        requireUnset(this.minStep, "minStep");
        this.minStep = requireStep(step, "segment.min-step");
        return this;
    }

    /** The largest step adaptation may choose (key {@code segment.max-step}); default 1,000,000. */
    public Segments maxStep(long step) {
        requireUnset(this.maxStep, "maxStep");
        this.maxStep = requireStep(step, "segment.max-step");
        return this;
    }

    /**
     * How long one range should last (key {@code segment.target-duration}); default 1 min. A
     * range used up faster doubles the step; one lasting over twice as long halves it.
     */
    public Segments targetDuration(Duration target) {
        requireUnset(this.target, "targetDuration");
        requirePositive(target, "segment.target-duration");
        requireAtMost(target, MAX_TARGET, "segment.target-duration");
        this.target = target;
        return this;
    }

    /**
     * How long a caller waits for a range when both buffers are empty before
     * {@link IdUnavailableException} (key {@code segment.fetch-timeout}); default 1 s.
     */
    public Segments fetchTimeout(Duration timeout) {
        requireUnset(this.fetchTimeout, "fetchTimeout");
        requirePositive(timeout, "segment.fetch-timeout");
        requireAtMost(timeout, MAX_FETCH_TIMEOUT, "segment.fetch-timeout");
        this.fetchTimeout = timeout;
        return this;
    }

    /**
     * Whether a tag unknown to the store is created on first use, starting at 1 (key
     * {@code segment.auto-create}); default false: an unknown tag is an error.
     */
    public Segments autoCreate(boolean autoCreate) {
        requireUnset(this.autoCreate, "autoCreate");
        this.autoCreate = autoCreate;
        return this;
    }

    /**
     * How a tag's IDs are ordered across threads (key {@code segment.order}: {@code issue} or
     * {@code relaxed}); default {@link SegmentOrder#ISSUE}. {@link SegmentOrder#RELAXED} gives each
     * thread blocks of its own, for throughput that grows with threads, at the price of issue
     * order across threads and of a block tail per thread and range left unissued.
     */
    public Segments order(SegmentOrder order) {
        requireUnset(this.order, "order");
        this.order = Objects.requireNonNull(order, "order");
        return this;
    }

    /**
     * Where range fetches run; default four daemon threads of the generator's own (idle ones
     * end), shut down by {@link SegmentGenerator#close()}. An executor given here stays the
     * caller's. {@code Runnable::run} fetches on the calling thread, holding the tag's lock,
     * which lets a model checker that schedules only the callers explore every interleaving.
     */
    Segments fetchExecutor(Executor executor) {
        requireUnset(this.fetchExecutor, "fetchExecutor");
        this.fetchExecutor = Objects.requireNonNull(executor, "executor");
        return this;
    }

    /**
     * Validates the whole configuration and returns the running generator. No range is fetched
     * until a tag is first asked for.
     *
     * @throws IllegalArgumentException naming the bad setting
     */
    public SegmentGenerator build() {
        requireArgument(store != null, "no range store: pass one to store()");
        // an explicit step outside the default bounds widens them, unless they were set too
        long min = minStep != null ? minStep
                : Math.min(DEFAULT_MIN_STEP, step != null ? step : DEFAULT_MIN_STEP);
        long max = maxStep != null ? maxStep
                : Math.max(DEFAULT_MAX_STEP, step != null ? step : 0);
        long initial = step != null ? step : Math.min(Math.max(DEFAULT_STEP, min), max);
        requireArgument(min <= max, "segment.min-step (" + min + ") must not exceed "
                + "segment.max-step (" + max + ")");
        requireArgument(initial >= min && initial <= max, "segment.step (" + initial
                + ") must be between segment.min-step (" + min + ") and segment.max-step ("
                + max + ")");
        SegmentSettings settings = new SegmentSettings(store,
                timeSource != null ? timeSource : TimeSource.system(),
                new StepPolicy(initial, min, max,
                        (target != null ? target : DEFAULT_TARGET).toNanos()),
                (fetchTimeout != null ? fetchTimeout : DEFAULT_FETCH_TIMEOUT).toNanos(),
                autoCreate != null && autoCreate, order != null ? order : SegmentOrder.ISSUE);
        return new BufferedSegmentGenerator(settings, fetchExecutor);
    }

    private static long requireStep(long step, String key) {
        // below Long.MAX_VALUE / 4 so that doubling and cursors running past a range's end
        // cannot overflow
        requireArgument(step > 0 && step <= (1L << 40), key + " must be between 1 and 2^40, got "
                + step);
        return step;
    }
}

package io.idmint;

import static io.idmint.spi.support.Checks.requireArgument;
import static io.idmint.spi.support.Checks.requireAtMost;
import static io.idmint.spi.support.Checks.requirePositive;
import static io.idmint.spi.support.Checks.requireUnset;

import io.idmint.spi.ClaimRequest;
import io.idmint.spi.WorkerRegistry;
import io.idmint.spi.support.Durations;
import io.idmint.spi.support.Names;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.concurrent.Executor;

/**
 * Builds Snowflake-family generators. Each setter validates its value at once and may be called
 * only once; {@link #build()} resolves the defaults, claims a worker from the registry and
 * returns a running {@link IdGenerator}.
 *
 * <pre>{@code
 * try (WorkerRegistry registry = WorkerRegistries.local(Path.of("data"));
 *      IdGenerator ids = Snowflake.newBuilder().registry(registry).build()) {
 *     long id = ids.nextId();
 * }
 * }</pre>
 */
public final class Snowflake {

    static final Duration DEFAULT_LEASE_TTL = Duration.ofSeconds(30);
    static final Duration DEFAULT_KEEPALIVE = Duration.ofSeconds(10);
    static final Duration DEFAULT_STORE_TIMEOUT = Duration.ofSeconds(15);
    static final Duration DEFAULT_WINDOW = Duration.ofSeconds(10);
    static final Duration DEFAULT_MAX_WAIT = Duration.ofMillis(10);
    static final Duration DEFAULT_MAX_FORWARD_STEP = Duration.ofSeconds(1);
    static final Duration DEFAULT_MAX_SKEW = Duration.ofSeconds(2);
    // The bounds of each duration. The server's configuration reads them too, for its parsers
    // and help, so that a value is refused at load with the same range the builder enforces.
    /** The longest {@link #maxClockWait}: a caller held longer is better off failing. */
    public static final Duration MAX_CLOCK_WAIT = Duration.ofSeconds(10);
    /** The largest {@link #maxForwardStep}: larger steps are followed after a minute anyway. */
    public static final Duration MAX_FORWARD_STEP = Duration.ofMinutes(1);
    /** The largest {@link #maxClockSkew}: beyond it the fleet check would check nothing. */
    public static final Duration MAX_CLOCK_SKEW = Duration.ofMinutes(10);
    /** The furthest {@link #maxLead}. */
    public static final Duration MAX_LEAD = Duration.ofMinutes(1);
    /**
     * The longest {@link #leaseTtl}, {@link #keepaliveInterval} and {@link #storeTimeout}: how
     * long a crashed node's worker stays held, and how long a node mints without its registry.
     */
    public static final Duration MAX_LEASE = Duration.ofMinutes(10);
    /** The shortest {@link #reservationWindow}: renewed every third of it. */
    public static final Duration MIN_RESERVATION = Duration.ofMillis(30);
    /**
     * The longest {@link #reservationWindow}: a worker left by a crash is ahead of the clock by
     * up to this, and a restarted lone node may wait that long for it.
     */
    public static final Duration MAX_RESERVATION = Duration.ofMinutes(5);
    /** The most workers one generator may stripe over (the {@code region} layout's pool). */
    static final int MAX_WORKERS = 1024;

    private Layout layout;
    private WorkerRegistry registry;
    private String namespace;
    private Integer datacenterId;
    private String datacenterName;
    private Integer workerId;
    private Integer workers;
    private TimeSource timeSource;
    private ClockPolicy clockPolicy;
    private Duration maxClockWait;
    private Duration maxForwardStep;
    private Duration maxClockSkew;
    private Duration maxLead;
    private SequenceStart sequenceStart;
    private Duration leaseTtl;
    private Duration keepalive;
    private Duration storeTimeout;
    private Duration window;
    private GeneratorListener listener;
    private Executor maintenance;

    private Snowflake() {
    }

    public static Snowflake newBuilder() {
        return new Snowflake();
    }

    /** The bit layout; default {@link Layout#SNOWFLAKE}. */
    public Snowflake layout(Layout layout) {
        requireUnset(this.layout, "layout");
        this.layout = Objects.requireNonNull(layout, "layout");
        return this;
    }

    /** Where worker IDs are leased. Required; it stays the caller's to close. */
    public Snowflake registry(WorkerRegistry registry) {
        requireUnset(this.registry, "registry");
        this.registry = Objects.requireNonNull(registry, "registry");
        return this;
    }

    /** The deployment's name in the registry; default {@code default}. */
    public Snowflake namespace(String namespace) {
        requireUnset(this.namespace, "namespace");
        this.namespace = Names.requireNamespace(namespace);
        return this;
    }

    /** This node's datacenter ID; default 0. Checked against the layout at build. */
    public Snowflake datacenterId(int datacenterId) {
        requireUnset(this.datacenterId, "datacenterId");
        requireArgument(datacenterId >= 0, "datacenterId must be >= 0, got " + datacenterId);
        this.datacenterId = datacenterId;
        return this;
    }

    /**
     * The name of this node's datacenter (key {@code datacenter.name}); default none. The
     * registry remembers the name of each datacenter ID and refuses a node that gives the same ID
     * another name, so two datacenters configured alike cannot both start.
     */
    public Snowflake datacenterName(String name) {
        requireUnset(this.datacenterName, "datacenterName");
        this.datacenterName = Names.requireDatacenterName(name, "datacenter.name");
        return this;
    }

    /**
     * The worker ID to take when it is free; default none (the registry picks the lowest free one
     * not ahead of the clock, see {@link io.idmint.spi.WorkerRegistry#claim}). It still goes
     * through the registry's claim, so it is never shared.
     */
    public Snowflake preferredWorkerId(int workerId) {
        requireUnset(this.workerId, "preferredWorkerId");
        requireArgument(workerId >= 0, "worker ID must be >= 0, got " + workerId);
        this.workerId = workerId;
        return this;
    }

    /**
     * How many worker IDs to lease and mint from at once (key {@code workers}), 1 to 1024 and at
     * most the layout's worker IDs; default 1. One worker issues at most
     * {@link Layout#idsPerSecond()} IDs (4,096,000 with the default layout); {@code k} workers
     * issue up to {@code k} times that, each from its own lease and high-water mark.
     *
     * <p>With {@code k > 1} each thread is given one worker on its first call (round-robin), so
     * threads on different workers never touch the same state. IDs are strictly increasing per
     * <em>thread</em> (across single calls and batches), not across threads: two threads on
     * different workers get IDs in no particular order relative to each other, still k-sorted
     * by time. A batch ({@link IdGenerator#nextIds}) takes from other workers when its thread's
     * worker has used up the current tick, and is returned sorted. A thread whose worker cannot
     * issue (lease lost, runway used up) moves to another worker that can, above its last ID.
     * Layouts with a shard field take {@code k = 1} only.
     */
    public Snowflake workers(int count) {
        requireUnset(this.workers, "workers");
        requireArgument(count >= 1 && count <= MAX_WORKERS, "workers must be from 1 to "
                + MAX_WORKERS + ", got " + count);
        this.workers = count;
        return this;
    }

    /** Where time comes from; default {@link TimeSource#system()}. */
    public Snowflake timeSource(TimeSource timeSource) {
        requireUnset(this.timeSource, "timeSource");
        this.timeSource = Objects.requireNonNull(timeSource, "timeSource");
        return this;
    }

    /**
     * What to do when the clock is behind by more than the wait; default {@link ClockPolicy#FAIL}.
     */
    public Snowflake clockPolicy(ClockPolicy clockPolicy) {
        requireUnset(this.clockPolicy, "clockPolicy");
        this.clockPolicy = Objects.requireNonNull(clockPolicy, "clockPolicy");
        return this;
    }

    /**
     * How long a caller waits for a clock that is behind (key {@code clock.max-wait}); default 10
     * ms.
     */
    public Snowflake maxClockWait(Duration wait) {
        requireUnset(this.maxClockWait, "maxClockWait");
        requireArgument(!wait.isNegative() && wait.compareTo(MAX_CLOCK_WAIT) <= 0,
                "clock.max-wait must be between 0 and " + Durations.format(MAX_CLOCK_WAIT)
                        + ", got " + Durations.format(wait));
        this.maxClockWait = wait;
        return this;
    }

    /**
     * The largest forward step of the wall clock that the default time source follows at once
     * (key {@code clock.max-forward-step}); default 1 s, far above what NTP slewing moves between
     * two reads and far below a reservation window. A larger step is followed only once the fleet
     * clock check confirms it, or, with no fleet to compare with, after it has persisted for a
     * minute (docs/design.md, "Clock checks"). Not with {@link #timeSource(TimeSource)}.
     */
    public Snowflake maxForwardStep(Duration step) {
        requireUnset(this.maxForwardStep, "maxForwardStep");
        requirePositive(step, "clock.max-forward-step");
        requireAtMost(step, MAX_FORWARD_STEP, "clock.max-forward-step");
        this.maxForwardStep = step;
        return this;
    }

    /**
     * How far this node's clock may be from the fleet's (the store's clock, or the other holders'
     * high-water marks) before it takes no worker and gives up the one it holds (key
     * {@code clock.max-skew}); default 2 s (docs/design.md, "Clock checks").
     */
    public Snowflake maxClockSkew(Duration skew) {
        requireUnset(this.maxClockSkew, "maxClockSkew");
        requirePositive(skew, "clock.max-skew");
        requireAtMost(skew, MAX_CLOCK_SKEW, "clock.max-skew");
        this.maxClockSkew = skew;
        return this;
    }

    /**
     * How far ahead of the clock the sequence may borrow when a tick's sequence runs out (key
     * {@code sequence.max-lead}); default 0: wait for the next tick instead.
     */
    public Snowflake maxLead(Duration lead) {
        requireUnset(this.maxLead, "maxLead");
        requireArgument(!lead.isNegative() && lead.compareTo(MAX_LEAD) <= 0,
                "sequence.max-lead must be between 0 and " + Durations.format(MAX_LEAD)
                        + ", got " + Durations.format(lead));
        this.maxLead = lead;
        return this;
    }

    /**
     * Where each tick's sequence starts (keys {@code sequence.start},
     * {@code sequence.random-span}); default {@link SequenceStart#zero()}. A random start's span
     * must not exceed the layout's IDs per tick (checked at build).
     */
    public Snowflake sequenceStart(SequenceStart start) {
        requireUnset(this.sequenceStart, "sequenceStart");
        this.sequenceStart = Objects.requireNonNull(start, "sequenceStart");
        return this;
    }

    /**
     * How long the registry keeps a claim without renewal (key {@code lease.ttl}); default 30 s.
     */
    public Snowflake leaseTtl(Duration ttl) {
        requireUnset(this.leaseTtl, "leaseTtl");
        requirePositive(ttl, "lease.ttl");
        requireAtMost(ttl, MAX_LEASE, "lease.ttl");
        this.leaseTtl = ttl;
        return this;
    }

    /** How often the lease is renewed (key {@code lease.keepalive}); default 10 s. */
    public Snowflake keepaliveInterval(Duration interval) {
        requireUnset(this.keepalive, "keepaliveInterval");
        requirePositive(interval, "lease.keepalive");
        requireAtMost(interval, MAX_LEASE, "lease.keepalive");
        this.keepalive = interval;
        return this;
    }

    /**
     * How long IDs may still be issued after the registry was last reached (key
     * {@code lease.store-timeout}); default 15 s.
     */
    public Snowflake storeTimeout(Duration timeout) {
        requireUnset(this.storeTimeout, "storeTimeout");
        requirePositive(timeout, "lease.store-timeout");
        requireAtMost(timeout, MAX_LEASE, "lease.store-timeout");
        this.storeTimeout = timeout;
        return this;
    }

    /**
     * How far ahead of the clock each reservation of the HWM reaches (key
     * {@code lease.reservation}); renewed every third of it. Default 10 s.
     */
    public Snowflake reservationWindow(Duration window) {
        requireUnset(this.window, "reservationWindow");
        requirePositive(window, "lease.reservation");
        requireArgument(window.compareTo(MIN_RESERVATION) >= 0, "lease.reservation must be at "
                + "least " + Durations.format(MIN_RESERVATION) + ", got "
                + Durations.format(window));
        requireAtMost(window, MAX_RESERVATION, "lease.reservation");
        this.window = window;
        return this;
    }

    /** Hooks for metrics and logs; default none. */
    public Snowflake listener(GeneratorListener listener) {
        requireUnset(this.listener, "listener");
        this.listener = Objects.requireNonNull(listener, "listener");
        return this;
    }

    /**
     * Where each worker's maintenance loop (the HWM protocol's renewals) runs; it occupies one
     * thread for the generator's life. Default: a daemon thread of its own per worker. A test
     * that steps the protocol itself passes an executor that runs nothing.
     */
    Snowflake maintenance(Executor executor) {
        requireUnset(this.maintenance, "maintenance");
        this.maintenance = Objects.requireNonNull(executor, "executor");
        return this;
    }

    /**
     * Validates the whole configuration, claims a worker and reserves time, then returns the
     * running generator. A registry that cannot be reached yet leaves it
     * {@link LeaseState#ACQUIRING} (calls throw {@link IdUnavailableException} until it has a
     * worker); a registry that refuses the configuration fails the build.
     *
     * @throws IllegalArgumentException naming the bad setting
     * @throws IllegalStateException when the registry refuses this node's layout or datacenter,
     *     or its stored state is unreadable; with {@link #workers(int)} above 1, also when it has
     *     fewer free worker IDs than asked for (the workers leased so far are released again)
     */
    public IdGenerator build() {
        requireArgument(registry != null, "no registry: pass one to registry(), e.g. "
                + "WorkerRegistries.local(Path.of(\"data\"))");
        Layout l = layout != null ? layout : Layout.SNOWFLAKE;
        requireArgument(!l.unsigned(), "layout " + l + " uses all 64 bits; idmint decodes such "
                + "IDs but mints at most 63 bits, so that every ID is a positive long that sorts "
                + "by time (docs/migration.md)");
        requireArgument(timeSource == null || maxForwardStep == null, "clock.max-forward-step "
                + "applies to the default time source; a timeSource() of your own decides itself");
        TimeSource time = timeSource != null ? timeSource : new HybridTimeSource((maxForwardStep
                != null ? maxForwardStep : DEFAULT_MAX_FORWARD_STEP).toMillis());
        int dc = datacenterId != null ? datacenterId : 0;
        requireArgument(dc <= l.maxDatacenterId(), "datacenter " + dc + " does not fit layout "
                + l + " (0.." + l.maxDatacenterId() + ")");
        int preferred = workerId != null ? workerId : -1;
        requireArgument(preferred <= l.maxWorkerId(), "worker " + preferred
                + " does not fit layout "
                + l + " (0.." + l.maxWorkerId() + ")");
        long now = time.currentTimeMillis();
        requireArgument(l.epochMillis() <= now, "layout epoch "
                + Instant.ofEpochMilli(l.epochMillis())
                + " is in the future (the clock says " + Instant.ofEpochMilli(now) + ")");
        requireArgument(l.exhaustionMillis() > now, "layout " + l + " ran out of time at "
                + l.exhaustion());
        requireArgument(sequenceStart == null || sequenceStart.span() <= l.idsPerTick(),
                "sequence.random-span " + (sequenceStart == null ? 0 : sequenceStart.span())
                        + " exceeds the " + l.idsPerTick() + " IDs per tick of layout " + l);
        Duration ttl = leaseTtl != null ? leaseTtl : DEFAULT_LEASE_TTL;
        Duration ka = keepalive != null ? keepalive : DEFAULT_KEEPALIVE;
        Duration st = storeTimeout != null ? storeTimeout : DEFAULT_STORE_TIMEOUT;
        Duration w = window != null ? window : DEFAULT_WINDOW;
        requireArgument(ttl.compareTo(ka.multipliedBy(3)) >= 0, "lease.ttl ("
                + Durations.format(ttl) + ") must be at least 3 x lease.keepalive ("
                + Durations.format(ka) + ")");
        requireArgument(st.compareTo(ttl) <= 0, "lease.store-timeout ("
                + Durations.format(st) + ") must not exceed lease.ttl (" + Durations.format(ttl)
                + ")");
        int k = workers != null ? workers : 1;
        requireArgument(k <= l.maxWorkerId() + 1, "workers " + k + " exceeds the "
                + (l.maxWorkerId() + 1) + " worker IDs of layout " + l + " (0.."
                + l.maxWorkerId() + ")");
        requireArgument(k == 1 || l.bits(Layout.Field.SHARD) == 0, "workers " + k
                + " needs a layout without a shard field; layout " + l + " has one");
        Duration period = ka.compareTo(w.dividedBy(3)) < 0 ? ka : w.dividedBy(3);
        Duration lead = maxLead != null ? maxLead : Duration.ZERO;
        GeneratorSettings settings = new GeneratorSettings(l, time,
                clockPolicy != null ? clockPolicy : ClockPolicy.FAIL,
                (maxClockWait != null ? maxClockWait : DEFAULT_MAX_WAIT).toMillis(),
                lead.toMillis() / l.tickMillis(),
                sequenceStart != null ? sequenceStart : SequenceStart.zero(),
                w.toMillis(), period.toMillis(), st.toMillis(),
                (maxClockSkew != null ? maxClockSkew : DEFAULT_MAX_SKEW).toMillis(),
                listener != null ? listener : GeneratorListener.NONE);
        ClaimRequest request = new ClaimRequest(namespace != null ? namespace : "default",
                l.spec(), dc, datacenterName != null ? datacenterName : "", l.maxWorkerId(),
                preferred, ttl.toMillis(), holder(), FleetClock.maxAheadMillis(settings));
        return new GeneratorLauncher(settings, registry, maintenance).launch(request, k);
    }

    /** {@code host/pid}, for operators reading the registry. */
    private static String holder() {
        String host = System.getenv("HOSTNAME");
        try {
            host = java.nio.file.Files.readString(java.nio.file.Path.of("/etc/hostname")).trim();
        } catch (java.io.IOException | RuntimeException e) {
            // not Linux, or unreadable: the environment's name, if any, will do
        }
        String name = host == null || host.isEmpty() ? "unknown" : host;
        return name + "/" + ProcessHandle.current().pid();
    }
}

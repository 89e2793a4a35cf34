package io.idmint;

import io.idmint.IdUnavailableException.Reason;
import io.idmint.Layout.Field;
import io.idmint.spi.ClaimRequest;
import io.idmint.spi.WorkerRegistry;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The hot path. State is one {@code long} per held worker, {@code tick << sequenceBits | sequence}
 * of the last issued ID, advanced by compare-and-set to {@code max(now << sequenceBits, last + 1)}:
 * so time never goes backwards inside a process (guarantee 1a), no lock is held while waiting for
 * the clock, and two threads can never take the same value.
 *
 * <p>A held worker is a {@link Slot}: its node bits, its state and its issuance limit travel
 * together, so a thread that raced a worker change can only fail its CAS on the old slot, never
 * mix one worker's bits with another's sequence. Retiring a slot swaps its state for
 * {@link #CLOSED} atomically, which yields the exact last issued tick for the final HWM.
 */
final class SnowflakeGenerator implements IdGenerator, LeaseIssuer {

    static final long CLOSED = Long.MIN_VALUE;

    /** A worker ID held under a lease, or a closed placeholder saying why none is. */
    static final class Slot {
        final int datacenterId;
        final int workerId;
        final long nodeBits;
        final AtomicLong state;
        /** Last tick this slot may issue: the acknowledged reservation, capped by the lease. */
        volatile long limitTick;
        final IdUnavailableException unavailable;

        Slot(int datacenterId, int workerId, long nodeBits, long initialState, long limitTick) {
            this.datacenterId = datacenterId;
            this.workerId = workerId;
            this.nodeBits = nodeBits;
            this.state = new AtomicLong(initialState);
            this.limitTick = limitTick;
            this.unavailable = null;
        }

        Slot(IdUnavailableException unavailable) {
            this.datacenterId = -1;
            this.workerId = -1;
            this.nodeBits = 0;
            this.state = new AtomicLong(CLOSED);
            this.limitTick = Long.MIN_VALUE;
            this.unavailable = unavailable;
        }
    }

    private final Layout layout;
    private final TimeSource time;
    private final ClockPolicy clockPolicy;
    private final long maxWaitMillis;
    private final long maxLeadTicks;
    private final SequenceStart start;
    private final GeneratorListener listener;
    private final int sequenceBits;
    private final long sequenceMask;
    private final int timeShift;
    private final int sequenceShift;
    private final int shardShift;
    private final long shardCount;
    private final long tickMillis;
    private final long epochMillis;
    private final long maxTick;
    private final HwmLease lease;

    private volatile Slot slot;
    /** The last tick issued on any worker this generator held before: the floor for the next. */
    private volatile long retiredTick = Long.MIN_VALUE;

    /** A generator that holds no worker yet: its lease's first acquisition installs one. */
    SnowflakeGenerator(GeneratorSettings settings, WorkerRegistry registry,
            ClaimRequest request, FleetClock fleet) {
        this.layout = settings.layout();
        this.time = settings.time();
        this.clockPolicy = settings.clockPolicy();
        this.maxWaitMillis = settings.maxWaitMillis();
        this.maxLeadTicks = settings.maxLeadTicks();
        this.start = settings.sequenceStart();
        this.listener = settings.listener();
        this.sequenceBits = layout.bits(Field.SEQUENCE);
        this.sequenceMask = layout.maxValue(Field.SEQUENCE);
        this.timeShift = layout.shift(Field.TIME);
        this.sequenceShift = layout.shift(Field.SEQUENCE);
        this.shardShift = layout.shift(Field.SHARD);
        this.shardCount = layout.maxValue(Field.SHARD) + 1;
        this.tickMillis = layout.tickMillis();
        this.epochMillis = layout.epochMillis();
        this.maxTick = layout.maxTick();
        this.slot = new Slot(new IdUnavailableException(Reason.NO_LEASE,
                "no worker ID held yet", Duration.ofSeconds(1)));
        // The lease only keeps this view; it calls it once acquireOrThrow() or start() runs.
        this.lease = new HwmLease(settings, this, registry, request, fleet);
    }

    @Override
    public long nextId() {
        return next(0, 1, 0, true);
    }

    @Override
    public long nextId(long shardKey) {
        if (layout.bits(Field.SHARD) == 0) {
            throw new IllegalStateException("layout " + layout + " has no shard field; "
                    + "use nextId() or a layout with shard bits such as 'instagram'");
        }
        return next(Math.floorMod(shardKey, shardCount) << shardShift, 1, 0, true);
    }

    @Override
    public void nextIds(long[] ids, int from, int to) {
        fill(ids, from, to, true);
    }

    @Override
    public int nextIdsNow(long[] ids, int from, int to) {
        return fill(ids, from, to, false);
    }

    private int fill(long[] ids, int from, int to, boolean wait) {
        if (from < 0 || to > ids.length || from > to) {
            throw new IndexOutOfBoundsException("range [" + from + ", " + to + ") of an array of "
                    + ids.length);
        }
        int i = from;
        while (i < to) {
            int n = (int) Math.min(to - i, sequenceMask + 1);
            long first = next(0, n, 0, wait);
            if (first <= 0) {
                if (first == 0) {
                    listener.onSequenceWait(); // the caller takes the rest a tick later
                }
                break;
            }
            // next() took min(n, what is left of the tick): IDs that differ only in the sequence.
            int taken = runLength(first, n);
            for (int k = 0; k < taken; k++) {
                ids[i++] = first + ((long) k << sequenceShift);
            }
        }
        return i;
    }

    /**
     * Takes up to {@code want} consecutive sequence numbers of one tick (fewer when the tick has
     * fewer left) and returns the ID of the first. With a {@code floorId} other than 0, every ID
     * taken is above it (a striped generator's per-thread order). With {@code wait} false, returns
     * 0 instead of waiting for a later tick when this one is used up, and -1 instead of waiting
     * for a clock that is behind the last ID by no more than the policy waits for; nothing is
     * taken then.
     */
    private long next(long shardBits, int want, long floorId, boolean wait) {
        for (;;) {
            Slot s = slot;
            long prev = s.state.get();
            if (prev == CLOSED) {
                if (s == slot) {
                    throw s.unavailable;
                }
                continue;
            }
            // Read the clock after the state: a state written by a thread that read a later
            // clock then never looks like a clock step back (the time source is monotonic).
            long now = Math.floorDiv(time.currentTimeMillis() - epochMillis, tickMillis);
            long low = floorId == 0 ? prev : Math.max(prev, stateBelow(s, floorId));
            long candidate = Math.max(now << sequenceBits, low + 1);
            if (candidate > (low | sequenceMask)) {
                // The first ID of a tick after low's: any sequence in it is above low.
                candidate += start.offset(candidate >> sequenceBits);
            }
            long tick = candidate >> sequenceBits;
            if (tick - now > maxLeadTicks) {
                long behind = (low >> sequenceBits) - now - maxLeadTicks;
                if (behind > 0) {
                    long behindMillis = behind * tickMillis;
                    listener.onClockBehind(behindMillis);
                    if (behindMillis <= maxWaitMillis) {
                        if (!wait) {
                            return -1;
                        }
                        await(now + behind);
                        continue;
                    }
                    if (clockPolicy == ClockPolicy.FAIL) {
                        if (low == prev) {
                            // This worker's own last ID is ahead: give it up. (A floor alone
                            // is another worker's ID; that worker will see its own fault.)
                            lease.clockFault(behindMillis);
                        }
                        throw new IdUnavailableException(Reason.CLOCK_BEHIND, "clock is "
                                + behindMillis + " ms behind the last issued ID (max wait "
                                + maxWaitMillis + " ms); refusing until it catches up",
                                Duration.ofMillis(Math.min(behindMillis, 60_000)));
                    }
                    // ClockPolicy.CONTINUE: issue on the logical clock, within the limit below.
                } else {
                    if (!wait) {
                        return 0;
                    }
                    listener.onSequenceWait();
                    await(tick - maxLeadTicks);
                    continue;
                }
            }
            if (tick > s.limitTick) {
                throw beyondLimit(s, tick);
            }
            long last = Math.min(candidate + want - 1, candidate | sequenceMask);
            if (s.state.compareAndSet(prev, last)) {
                return (tick << timeShift) | ((candidate & sequenceMask) << sequenceShift)
                        | s.nodeBits | shardBits;
            }
        }
    }

    /**
     * The largest state whose successors all make IDs above {@code floorId} on slot {@code s}:
     * time is the top field, so only the floor's own tick needs a look. In it, the slot's IDs
     * grow with the sequence, which sits above or below the node fields depending on the layout.
     */
    private long stateBelow(Slot s, long floorId) {
        long tick = floorId >>> timeShift;
        long base = tick << timeShift | s.nodeBits;
        if ((base | sequenceMask << sequenceShift) <= floorId) {
            return tick << sequenceBits | sequenceMask; // the whole tick is at or below it
        }
        long lo = 0;
        long hi = sequenceMask;
        while (lo < hi) { // the first sequence number above the floor
            long mid = (lo + hi) >>> 1;
            if ((base | mid << sequenceShift) > floorId) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        return (tick << sequenceBits | lo) - 1;
    }

    /**
     * For a striped generator: up to {@code want} IDs of one tick above {@code floorId} (0: no
     * floor), as the first ID; the rest follow it {@link #sequenceStep()} apart, {@link
     * #runLength} of them. Returns 0 or less when {@code wait} is false and none can be had
     * without waiting for a later tick (see {@link #next}).
     */
    long takeRun(int want, long floorId, boolean wait) {
        return next(0, want, floorId, wait);
    }

    /** Tells the listener that a caller takes the rest of its batch a tick later. */
    void sequenceDeferred() {
        listener.onSequenceWait();
    }

    /** How many IDs a take of {@code want} that returned {@code first} got. */
    int runLength(long first, int want) {
        return (int) Math.min(want, sequenceMask - ((first >>> sequenceShift) & sequenceMask) + 1);
    }

    /** The difference between two IDs of one run. */
    long sequenceStep() {
        return 1L << sequenceShift;
    }

    private IdUnavailableException beyondLimit(Slot s, long tick) {
        if (tick > maxTick) {
            return new IdUnavailableException(Reason.TIME_EXHAUSTED, "layout " + layout
                    + " ran out of time at " + layout.exhaustion() + "; no more IDs can be minted",
                    Duration.ZERO);
        }
        lease.wake();
        return new IdUnavailableException(Reason.RUNWAY_EXHAUSTED, "worker " + s.workerId
                + " has no reservation for time " + layout.millisOf(tick)
                + " yet (reserved up to " + layout.millisOf(s.limitTick) + ")",
                Duration.ofSeconds(1));
    }

    private void await(long tick) {
        try {
            time.awaitMillis(epochMillis + tick * tickMillis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IdUnavailableException(Reason.INTERRUPTED,
                    "interrupted while waiting for the clock", Duration.ZERO);
        }
    }

    /**
     * Installs a newly claimed worker: nothing is issued at or below its {@code hwmTick}, nor at
     * or below the last tick of a worker this generator held before, so IDs keep increasing
     * across a change of worker.
     */
    @Override
    public void install(int datacenterId, int workerId, long hwmTick, long limitTick) {
        long nodeBits = layout.compose(0, datacenterId, workerId, 0, 0);
        long floor = Math.max(Math.max(hwmTick, retiredTick), -1);
        long initial = (floor + 1 << sequenceBits) - 1;
        slot = new Slot(datacenterId, workerId, nodeBits, initial, Math.min(limitTick, maxTick));
    }

    /** Raises the issuance limit of the held worker after an acknowledged reservation. */
    @Override
    public void extendLimit(long limitTick) {
        Slot s = slot;
        long limit = Math.min(limitTick, maxTick);
        if (s.unavailable == null && limit > s.limitTick) {
            s.limitTick = limit;
        }
    }

    @Override
    public long lastRetiredTick() {
        return retiredTick;
    }

    /**
     * Stops issuing on the held worker, atomically, and returns the last tick it issued (or
     * {@link Long#MIN_VALUE} when none was held). Later calls throw {@code reason}.
     */
    @Override
    public long retire(IdUnavailableException reason) {
        Slot s = slot;
        slot = new Slot(reason);
        long last = s.state.getAndSet(CLOSED);
        if (last == CLOSED) {
            return Long.MIN_VALUE;
        }
        long tick = last >> sequenceBits;
        retiredTick = Math.max(retiredTick, tick);
        return tick;
    }

    /** The last issued tick of the held worker (for reservations), or Long.MIN_VALUE. */
    @Override
    public long lastIssuedTick() {
        long st = slot.state.get();
        return st == CLOSED ? Long.MIN_VALUE : st >> sequenceBits;
    }

    Slot slot() {
        return slot;
    }

    HwmLease lease() {
        return lease;
    }

    @Override
    public Layout layout() {
        return layout;
    }

    @Override
    public GeneratorStatus status() {
        Slot s = slot;
        long now = time.currentTimeMillis();
        long runway = s.unavailable != null ? 0
                : Math.max(0, layout.millisOf(s.limitTick + 1) - now);
        return new GeneratorStatus(lease.state(), layout, s.datacenterId, s.workerId, runway,
                time.wallClockOffsetMillis(), lease.detail(),
                runway > 0 ? null : lease.reason() != null ? lease.reason()
                        : s.unavailable != null ? s.unavailable.reason()
                        : Reason.RUNWAY_EXHAUSTED, lease.fleetSkewMillis());
    }

    @Override
    public void close() {
        lease.close();
    }
}

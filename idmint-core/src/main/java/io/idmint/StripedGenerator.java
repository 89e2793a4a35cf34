package io.idmint;

import io.idmint.IdUnavailableException.Reason;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Mints from several leased workers ({@link Snowflake#workers(int)}), one
 * {@link SnowflakeGenerator} per worker: a <em>stripe</em>, with its own lease, HWM and CAS
 * word. Each thread is given a home stripe on its first call, round-robin, and single IDs come
 * from it alone, so threads on different stripes never contend and throughput grows with them.
 *
 * <p>Order is per thread: every ID a thread gets is above every ID it got before. The thread's
 * {@link Lane} keeps its last ID. Its home stripe's IDs are above it by themselves (one
 * generator's IDs always increase), except after a batch whose largest ID came from another
 * stripe, or after a move to another stripe: then the lane is <em>behind</em>, and the next take
 * asks the home stripe for an ID above the last one (waiting for the next tick at most). So the
 * fast path reads one thread-confined flag and writes one thread-confined field.
 *
 * <p>A batch takes what is left of the home stripe's tick first. If that is not enough, it takes
 * rounds over all stripes, lowest worker first, each giving what is left of its tick above the
 * thread's last ID without waiting; only when a whole round gives nothing does it wait for the
 * next tick, on the lowest worker. Each stripe's IDs increase in the order taken, so the batch is
 * a merge of sorted runs ({@link StripeRuns}).
 */
final class StripedGenerator implements IdGenerator {

    /** One thread's place. Only its own thread touches it. */
    static final class Lane {
        int home;
        /** The last ID this thread got from this generator; 0 for none. */
        long last;
        /** Whether the home stripe may still issue IDs at or below {@link #last}. */
        boolean behind;
        /** The runs of the batch being gathered. */
        final StripeRuns runs = new StripeRuns();

        Lane(int home) {
            this.home = home;
        }
    }

    private final SnowflakeGenerator[] stripes;
    private final long step;
    private final AtomicInteger assigned = new AtomicInteger();
    private final ThreadLocal<Lane> lanes;

    StripedGenerator(SnowflakeGenerator[] stripes) {
        this.stripes = stripes.clone();
        this.step = stripes[0].sequenceStep();
        this.lanes = ThreadLocal.withInitial(() -> new Lane(
                Math.floorMod(assigned.getAndIncrement(), this.stripes.length)));
    }

    @Override
    public long nextId() {
        Lane lane = lanes.get();
        long id;
        try {
            id = lane.behind ? stripes[lane.home].takeRun(1, lane.last, true)
                    : stripes[lane.home].nextId();
        } catch (IdUnavailableException e) {
            return moveOn(lane, e);
        }
        lane.behind = false;
        lane.last = id;
        return id;
    }

    /**
     * The home stripe cannot issue: takes one ID above the thread's last from the next stripe
     * that can, and makes that the thread's home. If none can, throws the home's failure.
     */
    private long moveOn(Lane lane, IdUnavailableException homeFailure) {
        if (!worthAnother(homeFailure)) {
            throw homeFailure;
        }
        for (int i = 1; i < stripes.length; i++) {
            int s = (lane.home + i) % stripes.length;
            long id;
            try {
                id = stripes[s].takeRun(1, lane.last, true);
            } catch (IdUnavailableException e) {
                if (!worthAnother(e)) {
                    throw e;
                }
                continue;
            }
            lane.home = s;
            lane.behind = false;
            lane.last = id;
            return id;
        }
        throw homeFailure;
    }

    /** Whether another stripe may succeed where one failed for this reason. */
    private static boolean worthAnother(IdUnavailableException e) {
        return e.reason() != Reason.INTERRUPTED && e.reason() != Reason.CLOSED
                && e.reason() != Reason.TIME_EXHAUSTED;
    }

    @Override
    public long nextId(long shardKey) {
        // Striping is refused for layouts with a shard field, so this always explains why not.
        return stripes[0].nextId(shardKey);
    }

    @Override
    public void nextIds(long[] ids, int from, int to) {
        fill(ids, from, to, true);
    }

    @Override
    public void nextIds(long[] ids, int from, int to, long above) {
        raiseFloor(above);
        nextIds(ids, from, to);
    }

    /**
     * Without waiting: as {@link #nextIds(long[], int, int)}, but a round over the stripes that
     * gives nothing ends the batch early. What it filled is above the thread's last ID, so a
     * call for the rest, on this thread, gets IDs above it.
     */
    @Override
    public int nextIdsNow(long[] ids, int from, int to) {
        return fill(ids, from, to, false);
    }

    private void raiseFloor(long above) {
        Lane lane = lanes.get();
        if (above > lane.last) {
            // Raising the thread's floor only makes its order stricter.
            lane.last = above;
            lane.behind = true;
        }
    }

    /** Fills {@code ids[from..)} and returns where it stopped: {@code to} when it may wait. */
    private int fill(long[] ids, int from, int to, boolean wait) {
        if (from < 0 || to > ids.length || from > to) {
            throw new IndexOutOfBoundsException("range [" + from + ", " + to + ") of an array of "
                    + ids.length);
        }
        int n = to - from;
        if (n == 0) {
            return to;
        }
        Lane lane = lanes.get();
        SnowflakeGenerator home = stripes[lane.home];
        StripeRuns runs = lane.runs;
        runs.clear();
        IdUnavailableException homeFailure = null;
        try {
            long first = home.takeRun(n, lane.behind ? lane.last : 0, false);
            if (first > 0) {
                int got = home.runLength(first, n);
                if (got == n) { // the common case: what is left of the home stripe's tick
                    StripeRuns.fill(ids, from, first, n, step);
                    lane.behind = false;
                    lane.last = ids[to - 1];
                    return to;
                }
                runs.add(lane.home, first, got);
            }
        } catch (IdUnavailableException e) {
            if (!worthAnother(e)) {
                throw e;
            }
            homeFailure = e;
        }
        int got = gather(lane, n, homeFailure, wait);
        if (got == 0) {
            return from;
        }
        runs.merge(ids, from, step, stripes.length);
        int top = runs.stripeOfLargest(step);
        if (homeFailure != null) {
            lane.home = top;
        }
        lane.behind = top != lane.home;
        lane.last = ids[from + got - 1];
        return from + got;
    }

    /**
     * Takes runs until the lane holds {@code n} IDs, all above the thread's last ID: rounds over
     * the stripes, lowest worker first, without waiting; after a round that gave nothing, waits
     * for the next tick on the lowest worker that can issue, or, when {@code wait} is false,
     * stops. Returns how many IDs the lane holds.
     *
     * @throws IdUnavailableException when no stripe can issue: the home's failure, else the first
     */
    private int gather(Lane lane, int n, IdUnavailableException homeFailure, boolean wait) {
        int k = stripes.length;
        int[] order = byWorker();
        boolean[] failed = new boolean[k];
        IdUnavailableException failure = homeFailure;
        if (homeFailure != null) {
            failed[lane.home] = true;
        }
        int filled = lane.runs.total();
        while (filled < n) {
            boolean idle = true;
            for (int j = 0; j < k && filled < n; j++) {
                int s = order[j];
                if (failed[s]) {
                    continue;
                }
                long first;
                try {
                    first = stripes[s].takeRun(n - filled, lane.last, false);
                } catch (IdUnavailableException e) {
                    if (!worthAnother(e)) {
                        throw e;
                    }
                    failure = failure != null ? failure : e;
                    failed[s] = true;
                    continue;
                }
                if (first > 0) {
                    int got = stripes[s].runLength(first, n - filled);
                    lane.runs.add(s, first, got);
                    filled += got;
                    idle = false;
                }
            }
            if (idle && !wait) {
                if (allFailed(failed)) {
                    throw failure;
                }
                stripes[order[0]].sequenceDeferred(); // the caller takes the rest a tick later
                break;
            }
            for (int j = 0; idle && filled < n; j++) {
                if (j == k) {
                    throw failure;
                }
                int s = order[j];
                if (failed[s]) {
                    continue;
                }
                try {
                    long first = stripes[s].takeRun(n - filled, lane.last, true);
                    int got = stripes[s].runLength(first, n - filled);
                    lane.runs.add(s, first, got);
                    filled += got;
                    idle = false;
                } catch (IdUnavailableException e) {
                    if (!worthAnother(e)) {
                        throw e;
                    }
                    failure = failure != null ? failure : e;
                    failed[s] = true;
                }
            }
        }
        return filled;
    }

    private static boolean allFailed(boolean[] failed) {
        for (boolean f : failed) {
            if (!f) {
                return false;
            }
        }
        return true;
    }

    /** Stripe indexes by their current worker ID, lowest first (IDs of a tick grow with it). */
    private int[] byWorker() {
        int[] order = new int[stripes.length];
        int[] worker = new int[stripes.length];
        for (int i = 0; i < order.length; i++) {
            worker[i] = stripes[i].slot().workerId;
            int j = i;
            while (j > 0 && worker[order[j - 1]] > worker[i]) {
                order[j] = order[j - 1];
                j--;
            }
            order[j] = i;
        }
        return order;
    }

    /** The stripes, lowest index first. */
    List<SnowflakeGenerator> stripes() {
        return List.of(stripes);
    }

    @Override
    public Layout layout() {
        return stripes[0].layout();
    }

    @Override
    public GeneratorStatus status() {
        List<GeneratorStatus.Worker> workers = new ArrayList<>(stripes.length);
        long offset = 0;
        long skew = 0;
        IdUnavailableException.Reason reason = null;
        for (SnowflakeGenerator g : stripes) {
            GeneratorStatus s = g.status();
            workers.add(s.workers().get(0));
            offset = s.clockOffsetMillis();
            skew = skew != 0 ? skew : s.fleetSkewMillis();
            reason = reason != null ? reason : s.reason();
        }
        return GeneratorStatus.ofStripes(layout(), workers, offset, reason, skew);
    }

    /** Closes every stripe: each releases its worker with its own final HWM. */
    @Override
    public void close() {
        RuntimeException failure = null;
        for (SnowflakeGenerator g : stripes) {
            try {
                g.close();
            } catch (RuntimeException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }
}

package io.idmint;

import io.idmint.IdUnavailableException.Reason;
import java.util.ArrayList;
import java.util.Arrays;
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
 * a merge of sorted runs: with the sequence as the lowest field (every preset but
 * {@code sonyflake}) the runs do not overlap and are only put in order; otherwise they are merged.
 */
final class StripedGenerator implements IdGenerator {

    /** One thread's place. Only its own thread touches it. */
    static final class Lane {
        int home;
        /** The last ID this thread got from this generator; 0 for none. */
        long last;
        /** Whether the home stripe may still issue IDs at or below {@link #last}. */
        boolean behind;
        /** The runs of the batch being gathered: first ID, length and stripe of each. */
        long[] firsts = new long[8];
        int[] lengths = new int[8];
        int[] stripeOf = new int[8];
        int runs;

        Lane(int home) {
            this.home = home;
        }

        void add(int stripe, long first, int length) {
            if (runs == firsts.length) {
                firsts = Arrays.copyOf(firsts, runs * 2);
                lengths = Arrays.copyOf(lengths, runs * 2);
                stripeOf = Arrays.copyOf(stripeOf, runs * 2);
            }
            firsts[runs] = first;
            lengths[runs] = length;
            stripeOf[runs] = stripe;
            runs++;
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
        if (from < 0 || to > ids.length || from > to) {
            throw new IndexOutOfBoundsException("range [" + from + ", " + to + ") of an array of "
                    + ids.length);
        }
        int n = to - from;
        if (n == 0) {
            return;
        }
        Lane lane = lanes.get();
        SnowflakeGenerator home = stripes[lane.home];
        lane.runs = 0;
        IdUnavailableException homeFailure = null;
        try {
            long first = home.takeRun(n, lane.behind ? lane.last : 0, false);
            if (first != 0) {
                int got = home.runLength(first, n);
                if (got == n) { // the common case: what is left of the home stripe's tick
                    fill(ids, from, first, n);
                    lane.behind = false;
                    lane.last = ids[to - 1];
                    return;
                }
                lane.add(lane.home, first, got);
            }
        } catch (IdUnavailableException e) {
            if (!worthAnother(e)) {
                throw e;
            }
            homeFailure = e;
        }
        gather(lane, n, homeFailure);
        merge(lane, ids, from);
        int top = 0; // the run that ends with the largest ID
        for (int r = 1; r < lane.runs; r++) {
            if (lastOf(lane, r) > lastOf(lane, top)) {
                top = r;
            }
        }
        if (homeFailure != null) {
            lane.home = lane.stripeOf[top];
        }
        lane.behind = lane.stripeOf[top] != lane.home;
        lane.last = ids[to - 1];
    }

    @Override
    public void nextIds(long[] ids, int from, int to, long above) {
        Lane lane = lanes.get();
        if (above > lane.last) {
            // Raising the thread's floor only makes its order stricter.
            lane.last = above;
            lane.behind = true;
        }
        nextIds(ids, from, to);
    }

    /**
     * Takes runs until the lane holds {@code n} IDs, all above the thread's last ID: rounds over
     * the stripes, lowest worker first, without waiting; after a round that gave nothing, waits
     * for the next tick on the lowest worker that can issue.
     *
     * @throws IdUnavailableException when no stripe can issue: the home's failure, else the first
     */
    private void gather(Lane lane, int n, IdUnavailableException homeFailure) {
        int k = stripes.length;
        int[] order = byWorker();
        boolean[] failed = new boolean[k];
        IdUnavailableException failure = homeFailure;
        if (homeFailure != null) {
            failed[lane.home] = true;
        }
        int filled = 0;
        for (int r = 0; r < lane.runs; r++) {
            filled += lane.lengths[r];
        }
        while (filled < n) {
            boolean wait = true;
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
                if (first != 0) {
                    int got = stripes[s].runLength(first, n - filled);
                    lane.add(s, first, got);
                    filled += got;
                    wait = false;
                }
            }
            for (int j = 0; wait && filled < n; j++) {
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
                    lane.add(s, first, got);
                    filled += got;
                    wait = false;
                } catch (IdUnavailableException e) {
                    if (!worthAnother(e)) {
                        throw e;
                    }
                    failure = failure != null ? failure : e;
                    failed[s] = true;
                }
            }
        }
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

    /**
     * Writes the lane's runs into {@code ids[from..)}, ascending. Each run is sorted, and so are a
     * stripe's runs in the order taken; runs that do not overlap are put in order, and otherwise
     * the stripes' sequences are merged.
     */
    private void merge(Lane lane, long[] ids, int from) {
        int r = lane.runs;
        Integer[] byFirst = new Integer[r];
        for (int i = 0; i < r; i++) {
            byFirst[i] = i;
        }
        Arrays.sort(byFirst, (a, b) -> Long.compare(lane.firsts[a], lane.firsts[b]));
        boolean apart = true;
        for (int i = 1; i < r && apart; i++) {
            int prev = byFirst[i - 1];
            apart = lane.firsts[byFirst[i]] > lastOf(lane, prev);
        }
        if (apart) {
            int at = from;
            for (int i : byFirst) {
                fill(ids, at, lane.firsts[i], lane.lengths[i]);
                at += lane.lengths[i];
            }
            return;
        }
        // One cursor per stripe, over its runs in the order taken: a k-way merge.
        int k = stripes.length;
        int[][] runsOf = new int[k][];
        int[] count = new int[k];
        for (int i = 0; i < r; i++) {
            count[lane.stripeOf[i]]++;
        }
        for (int s = 0; s < k; s++) {
            runsOf[s] = new int[count[s]];
            count[s] = 0;
        }
        for (int i = 0; i < r; i++) {
            int s = lane.stripeOf[i];
            runsOf[s][count[s]++] = i;
        }
        int[] run = new int[k];
        int[] offset = new int[k];
        int total = 0;
        for (int i = 0; i < r; i++) {
            total += lane.lengths[i];
        }
        for (int at = from; at < from + total; at++) {
            int best = -1;
            long min = Long.MAX_VALUE;
            for (int s = 0; s < k; s++) {
                if (run[s] < runsOf[s].length) {
                    long v = lane.firsts[runsOf[s][run[s]]] + offset[s] * step;
                    if (v < min) {
                        min = v;
                        best = s;
                    }
                }
            }
            ids[at] = min;
            if (++offset[best] == lane.lengths[runsOf[best][run[best]]]) {
                run[best]++;
                offset[best] = 0;
            }
        }
    }

    private long lastOf(Lane lane, int run) {
        return lane.firsts[run] + (lane.lengths[run] - 1) * step;
    }

    private void fill(long[] ids, int from, long first, int n) {
        for (int i = 0; i < n; i++) {
            ids[from + i] = first + i * step;
        }
    }

    /** The stripes, for tests that step their leases. */
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
        for (SnowflakeGenerator g : stripes) {
            GeneratorStatus s = g.status();
            workers.add(s.workers().get(0));
            offset = s.clockOffsetMillis();
        }
        return summary(layout(), workers, offset);
    }

    /** The generator's status from its workers' (see {@link GeneratorStatus#state()}). */
    static GeneratorStatus summary(Layout layout, List<GeneratorStatus.Worker> workers,
            long clockOffsetMillis) {
        int issuing = 0;
        int active = 0;
        int lost = 0;
        int released = 0;
        long runway = Long.MAX_VALUE;
        List<String> problems = new ArrayList<>();
        for (int i = 0; i < workers.size(); i++) {
            GeneratorStatus.Worker w = workers.get(i);
            if (w.ready()) {
                issuing++;
                runway = Math.min(runway, w.runwayMillis());
            }
            active += w.ready() && w.state() == LeaseState.ACTIVE ? 1 : 0;
            lost += w.state() == LeaseState.LOST ? 1 : 0;
            released += w.state() == LeaseState.RELEASED ? 1 : 0;
            if (!w.ready() || w.state() != LeaseState.ACTIVE) {
                problems.add("stripe " + i + (w.workerId() < 0 ? "" : " (worker "
                        + w.workerId() + ")") + " " + w.state() + ": " + w.detail());
            }
        }
        int k = workers.size();
        LeaseState state = active == k ? LeaseState.ACTIVE
                : issuing > 0 ? LeaseState.DEGRADED
                : lost > 0 ? LeaseState.LOST
                : released == k ? LeaseState.RELEASED
                : LeaseState.ACQUIRING;
        String detail = active == k ? "holding workers " + String.join(", ", workers.stream()
                .map(w -> Integer.toString(w.workerId())).toList()) + " of datacenter "
                + workers.get(0).datacenterId()
                : issuing + " of " + k + " workers issuing; " + String.join("; ", problems);
        GeneratorStatus.Worker first = workers.get(0);
        return new GeneratorStatus(state, layout, first.datacenterId(), first.workerId(),
                issuing > 0 ? runway : 0, clockOffsetMillis, detail, workers);
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

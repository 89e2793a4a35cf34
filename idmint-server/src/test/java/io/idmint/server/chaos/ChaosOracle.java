package io.idmint.server.chaos;

import io.idmint.Layout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * What a chaos run saw, and the checks on it (docs/testing.md, "Chaos harness"). Every ID is
 * recorded with its holder (one node process: a restart is a new holder) and the harness's
 * real receive time; every mint call and readiness poll with its status and times.
 *
 * <p>Hard failures: an ID twice; two holders issuing in one millisecond of one worker (a near
 * miss even without a duplicate); an ID whose timestamp is more than {@code aheadBoundMillis}
 * ahead of the real time it was received at; a node answering READY for longer than
 * {@code graceMillis} while every mint call it answered in that time was a 503; a node
 * answering NOT READY since at least {@code graceMillis} before a mint call that succeeded,
 * and still NOT READY after it.
 */
public final class ChaosOracle {

    /** One {@code /v1/ids} call: status 0 when it failed without an answer (refused, timeout). */
    public record Call(int holder, long startMs, long endMs, int status) {
    }

    /** One {@code /health/ready} poll: status 0 when it got no answer. */
    public record Poll(long timeMs, int status) {
    }

    /** Everything recorded for one node slot, across its restarts. */
    public static final class Track {
        public final String slot;
        public final List<Call> calls = Collections.synchronizedList(new ArrayList<>());
        public final List<Poll> polls = Collections.synchronizedList(new ArrayList<>());
        public final TreeSet<String> workers = new TreeSet<>();
        public long ids;
        public long maxAheadMillis = Long.MIN_VALUE;
        public long beyondBound;

        public Track(String slot) {
            this.slot = slot;
        }
    }

    private final Layout layout;
    private final long sequenceMask;
    private final long aheadBoundMillis;
    private final long graceMillis;
    private final Map<String, Track> tracks = new TreeMap<>();
    private final List<String> holders = new ArrayList<>();
    private final List<String> violations = Collections.synchronizedList(new ArrayList<>());
    private long[] all = new long[1 << 20];
    private int count;
    /** (id without its sequence) | holder, one entry per holder and millisecond of a worker. */
    private long[] ticks = new long[1 << 16];
    private int tickCount;
    private long[] lastTick = new long[64];
    private long maxAheadMillis = Long.MIN_VALUE;
    private long maxBehindMillis = Long.MIN_VALUE;
    private int aheadViolations;

    public ChaosOracle(long aheadBoundMillis, long graceMillis) {
        this(Layout.SNOWFLAKE, aheadBoundMillis, graceMillis);
    }

    /** An oracle of IDs in {@code layout}. */
    public ChaosOracle(Layout layout, long aheadBoundMillis, long graceMillis) {
        this.layout = layout;
        this.sequenceMask = (1L << layout.bits(Layout.Field.SEQUENCE)) - 1;
        if (layout.shift(Layout.Field.SEQUENCE) != 0) {
            throw new IllegalStateException("the sequence must be the low bits: " + layout);
        }
        this.aheadBoundMillis = aheadBoundMillis;
        this.graceMillis = graceMillis;
    }

    /** The track of {@code slot}, made on first use. */
    synchronized Track track(String slot) {
        return tracks.computeIfAbsent(slot, Track::new);
    }

    /** A new holder (one node process); its index goes with the IDs it mints. */
    synchronized int holder(String name) {
        holders.add(name);
        if (holders.size() > sequenceMask) {
            throw new IllegalStateException("more holders than " + sequenceMask);
        }
        if (holders.size() > lastTick.length) {
            lastTick = Arrays.copyOf(lastTick, lastTick.length * 2);
        }
        lastTick[holders.size() - 1] = -1;
        return holders.size() - 1;
    }

    /** Records IDs {@code ids[0..n)} that holder {@code holder} of {@code t} answered. */
    synchronized void ids(Track t, int holder, long[] ids, int n, long receivedMs) {
        if (count + n > all.length) {
            all = Arrays.copyOf(all, Math.max(all.length * 2, count + n));
        }
        System.arraycopy(ids, 0, all, count, n);
        count += n;
        t.ids += n;
        for (int i = 0; i < n; i++) {
            long id = ids[i];
            long tick = (id & ~sequenceMask) | holder;
            if (tick != lastTick[holder]) {
                lastTick[holder] = tick;
                if (tickCount == ticks.length) {
                    ticks = Arrays.copyOf(ticks, ticks.length * 2);
                }
                ticks[tickCount++] = tick;
                t.workers.add(layout.get(id, Layout.Field.DATACENTER) + "/"
                        + layout.get(id, Layout.Field.WORKER));
            }
            long ahead = timeOf(id) - receivedMs;
            maxAheadMillis = Math.max(maxAheadMillis, ahead);
            maxBehindMillis = Math.max(maxBehindMillis, -ahead);
            t.maxAheadMillis = Math.max(t.maxAheadMillis, ahead);
            if (ahead > aheadBoundMillis) {
                t.beyondBound++;
            }
            if (ahead > aheadBoundMillis && aheadViolations++ < 5) {
                violations.add("ID " + id + " from " + holders.get(holder) + " is dated "
                        + ahead + " ms ahead of the real time it was received at (bound "
                        + aheadBoundMillis + " ms)");
            }
        }
    }

    private long timeOf(long id) {
        return layout.millisOf(layout.get(id, Layout.Field.TIME));
    }

    public int idCount() {
        return count;
    }

    public long maxAheadMillis() {
        return maxAheadMillis;
    }

    public long maxBehindMillis() {
        return maxBehindMillis;
    }

    public Map<String, Track> tracks() {
        return tracks;
    }

    /** Runs every check on what was recorded; returns the violations (empty: all held). */
    public synchronized List<String> check() {
        if (aheadViolations > 5) {
            violations.add("... " + (aheadViolations - 5) + " more IDs beyond the ahead bound");
        }
        long[] ids = Arrays.copyOf(all, count);
        Arrays.sort(ids);
        int dups = 0;
        for (int i = 1; i < ids.length; i++) {
            if (ids[i] == ids[i - 1] && dups++ < 5) {
                violations.add("duplicate ID " + ids[i]);
            }
        }
        long[] ts = Arrays.copyOf(ticks, tickCount);
        Arrays.sort(ts);
        int shared = 0;
        for (int i = 1; i < ts.length; i++) {
            boolean sameTick = (ts[i] & ~sequenceMask) == (ts[i - 1] & ~sequenceMask);
            if (sameTick && ts[i] != ts[i - 1] && shared++ < 5) {
                long id = ts[i] & ~sequenceMask;
                violations.add("two holders in one millisecond of one worker: "
                        + holders.get((int) (ts[i - 1] & sequenceMask)) + " and "
                        + holders.get((int) (ts[i] & sequenceMask)) + " both issued at "
                        + timeOf(id) + " on worker " + layout.get(id, Layout.Field.DATACENTER)
                        + "/" + layout.get(id, Layout.Field.WORKER));
            }
        }
        for (Track t : tracks.values()) {
            checkReadiness(t);
        }
        return List.copyOf(violations);
    }

    /**
     * READY while refusing: a run of polls that all answered 200 spanning more than the grace,
     * during which every mint call that started and ended inside it answered 503 (and at least
     * one did). NOT READY while issuing: a mint call answered 200 that lies inside a run of
     * polls that all answered 503 and began at least the grace before the call.
     */
    private void checkReadiness(Track t) {
        List<Poll> polls;
        List<Call> calls;
        synchronized (t.polls) {
            polls = List.copyOf(t.polls);
        }
        synchronized (t.calls) {
            calls = List.copyOf(t.calls);
        }
        int i = 0;
        while (i < polls.size()) {
            int j = i;
            while (j + 1 < polls.size() && polls.get(j + 1).status() == polls.get(i).status()) {
                j++;
            }
            long from = polls.get(i).timeMs();
            long to = polls.get(j).timeMs();
            int status = polls.get(i).status();
            if (status == 200 && to - from > graceMillis) {
                checkReadyRun(t, calls, from, to);
            } else if (status == 503) {
                for (Call c : calls) {
                    if (c.status() == 200 && c.startMs() >= from + graceMillis
                            && c.endMs() <= to) {
                        violations.add(t.slot + " answered NOT READY from " + from + " to " + to
                                + " yet a mint call from " + c.startMs() + " to " + c.endMs()
                                + " succeeded");
                        break;
                    }
                }
            }
            i = j + 1;
        }
    }

    private void checkReadyRun(Track t, List<Call> calls, long from, long to) {
        // The longest stretch inside [from, to] in which every call inside it was a 503.
        long refusingSince = -1;
        for (Call c : calls) {
            if (c.startMs() < from || c.endMs() > to) {
                continue;
            }
            if (c.status() != 503) {
                refusingSince = -1;
                continue;
            }
            if (refusingSince < 0) {
                refusingSince = c.startMs();
            }
            if (c.endMs() - refusingSince > graceMillis) {
                violations.add(t.slot + " answered READY from " + from + " to " + to
                        + " yet refused every mint call from " + refusingSince + " to "
                        + c.endMs() + " with 503");
                return;
            }
        }
    }
}

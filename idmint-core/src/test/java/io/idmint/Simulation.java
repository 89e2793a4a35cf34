package io.idmint;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.concurrent.ForkJoinPool;
import java.util.stream.IntStream;

/**
 * One schedule of the deterministic simulation of the HWM lease protocol (docs/testing.md,
 * "Deterministic simulation"): a seed picks a configuration, then interleaves the real
 * generators' {@code nextId()} calls and maintenance steps with clock faults (steps, drift,
 * pauses), crashes, restarts and store faults, over one to two and a half simulated seconds,
 * checked by a {@link SimOracle} as it runs. No threads, no real time: every node's clock reads
 * the one global time this class keeps, which is also the store's time.
 */
final class Simulation {

    /** 2026-06-01T00:00:00Z: the global time every schedule starts at. */
    static final long T0 = 1_780_272_000_000L;

    /** Layouts by worker bits (1, 2) and sequence bits (2..9): few workers, short ticks. */
    private static final Layout[][] LAYOUTS = new Layout[2][8];

    static {
        for (int w = 0; w < 2; w++) {
            for (int q = 0; q < 8; q++) {
                LAYOUTS[w][q] = Layout.parse("time=41,worker=" + (w + 1) + ",sequence=" + (q + 2)
                        + ",epoch=2026-01-01T00:00:00Z");
            }
        }
    }

    /** Schedules per task of a parallel run. */
    private static final int CHUNK = 500;

    /** One process on one machine: its generator and what the store acknowledged to it. */
    static final class Node {
        final int id;
        final Machine machine;
        final long[] acked;
        final long[] claimedHwm;
        SnowflakeGenerator gen;
        FencedUuidV7 uuids;
        long lastId = Long.MIN_VALUE;
        java.util.UUID lastUuid;

        Node(int id, Machine machine, int workers) {
            this.id = id;
            this.machine = machine;
            this.acked = new long[workers];
            this.claimedHwm = new long[workers];
        }

        void claimed(int worker, long hwm) {
            acked[worker] = hwm;
            claimedHwm[worker] = hwm;
        }

        void acknowledged(int worker, long until) {
            acked[worker] = Math.max(acked[worker], until);
        }
    }

    /** A machine: its clock outlives the processes that run on it. */
    static final class Machine {
        final int index;
        final SimClock clock;
        Node node;
        long pausedUntil;
        long downUntil;
        long nextMaintain;
        /** The reservation window of the node it runs now. */
        long window;

        Machine(int index, SimClock clock) {
            this.index = index;
            this.clock = clock;
        }
    }

    /** What a schedule did, counted so a test can check the faults are really exercised. */
    enum Event {
        ID, REFUSED, MAINTAIN, TAKEOVER, LEASE_LOST, CLOCK_WAIT, CLOCK_STEP, DRIFT, PAUSE, CRASH,
        CLOSE, FAILOVER, REQUEST_LOST, ANSWER_LOST, ANSWER_LATE, TIMEOUT, FAILOVER_REFUSED
    }

    private final SplittableRandom rng;
    private final StringBuilder trace;
    private long now = T0;
    private Layout layout;
    private SimStore store;
    private final List<Machine> machines = new ArrayList<>();
    private int nextNodeId;
    // configuration drawn from the seed
    private long ttl;
    private long keepalive;
    private long storeTimeout;
    private long window;
    /**
     * Whether each node draws a reservation window of its own (from {@link #windows}, so that a
     * schedule without mixed windows is the one its seed drew before they existed): the fleet
     * clock check must not judge a node with a short window behind the others by the difference.
     */
    private boolean mixedWindows;
    private final SplittableRandom windows;
    /**
     * Whether a call mints a fenced UUIDv7 rather than an ID: a stream of its own, so that the
     * schedule a seed draws is the one it drew before fenced UUIDs existed (the same IDs are
     * taken either way; a UUID is checked as the ID it carries, and for its own order).
     */
    private final SplittableRandom uuidCalls;
    private ClockPolicy policy;
    private int preferred;
    private int faultPermille;
    private int storeFaultPermille;
    private SimOracle oracle;
    private final long[] events = new long[Event.values().length];

    Simulation(long seed, boolean tracing) {
        this.rng = new SplittableRandom(seed);
        this.windows = new SplittableRandom(~seed);
        this.uuidCalls = new SplittableRandom(seed * 31 + 7);
        this.trace = tracing ? new StringBuilder() : null;
    }

    /**
     * Runs schedules {@code firstSeed .. firstSeed + count - 1} in chunks on every core; returns
     * the violation of the lowest failing seed as {@code "seed N: message"} with the command that
     * replays it, or null. Only JDK types cross this boundary, so a test can call it in another
     * class loader (the mutants).
     */
    static String explore(long firstSeed, int count) throws Exception {
        int chunks = (count + CHUNK - 1) / CHUNK;
        ForkJoinPool pool = new ForkJoinPool(Runtime.getRuntime().availableProcessors());
        try {
            return pool.submit(() -> IntStream.range(0, chunks).parallel()
                    .mapToObj(c -> exploreChunk(firstSeed + (long) c * CHUNK,
                            (int) Math.min(CHUNK, count - (long) c * CHUNK)))
                    .filter(Objects::nonNull).findFirst().orElse(null)).get();
        } finally {
            pool.shutdownNow();
        }
    }

    /** The same on this thread. */
    private static String exploreChunk(long firstSeed, int count) {
        for (int i = 0; i < count; i++) {
            long seed = firstSeed + i;
            String v = new Simulation(seed, false).run();
            if (v != null) {
                return "seed " + seed + ": " + v + "\nreplay: " + replayCommand(seed);
            }
        }
        return null;
    }

    static String replayCommand(long seed) {
        return "./mvnw -B -q -o -pl idmint-core -am verify -Dtest='SimulationTest#replay*'"
                + " -Dsim.seed="
                + seed + " -Dsurefire.failIfNoSpecifiedTests=false -Dit.test=none"
                + " -Dfailsafe.failIfNoSpecifiedTests=false";
    }

    long now() {
        return now;
    }

    /** Moves global time on (never back): a wait, a late answer or the scheduler's next step. */
    void advanceTo(long global) {
        now = Math.max(now, global);
    }

    long storeTimeoutMillis() {
        return storeTimeout;
    }

    SimStore.Fault storeFault() {
        int r = rng.nextInt(1000);
        if (r >= storeFaultPermille) {
            return SimStore.Fault.NONE;
        }
        return SimStore.Fault.values()[1 + r % 3];
    }

    long ackDelay() {
        return rng.nextInt(5) == 0 ? rng.nextLong(ttl) + 1 : rng.nextLong(20) + 1;
    }

    void count(Event e) {
        events[e.ordinal()]++;
    }

    /** How often each {@link Event} happened in this schedule. */
    long[] events() {
        return events.clone();
    }

    boolean tracing() {
        return trace != null;
    }

    /** Adds a line to the trace of machine {@code m} (null: the store), when tracing. */
    void trace(Machine m, String what) {
        if (trace != null) {
            trace.append(now - T0).append(m == null ? " store " : " m" + m.index + " ")
                    .append(what).append('\n');
        }
    }

    private void trace(Node n, String what) {
        if (trace != null) {
            trace(n.machine, "node#" + n.id + " " + what);
        }
    }

    /** Runs the schedule; returns the violation found, or null. */
    String run() {
        try {
            configure();
            long end = T0 + 1000 + rng.nextLong(1500);
            while (now < end) {
                advanceTo(now + (rng.nextInt(20) == 0 ? rng.nextLong(200) : rng.nextLong(8)));
                if (rng.nextInt(1000) < faultPermille) {
                    fault(machines.get(rng.nextInt(machines.size())));
                }
                step(machines.get(rng.nextInt(machines.size())));
            }
            for (Machine m : machines) {
                if (m.node != null) {
                    m.node.gen.close();
                }
            }
            return null;
        } catch (SimOracle.Violation v) {
            return v.getMessage() + " (" + config() + ")"
                    + (trace == null ? "" : "\ntrace (ms after start):\n" + trace);
        }
    }

    private void configure() {
        int workerBits = 1 + rng.nextInt(2);
        layout = LAYOUTS[workerBits - 1][rng.nextInt(LAYOUTS[0].length)];
        ttl = 150 + rng.nextLong(450);
        keepalive = ttl / (3 + rng.nextInt(3));
        storeTimeout = rng.nextBoolean() ? ttl : ttl / 2 + rng.nextLong(ttl / 2);
        window = 30 + rng.nextLong(2 * ttl);
        mixedWindows = windows.nextBoolean();
        policy = rng.nextBoolean() ? ClockPolicy.FAIL : ClockPolicy.CONTINUE;
        preferred = rng.nextInt(3) - 1;
        faultPermille = 5 + rng.nextInt(40);
        storeFaultPermille = rng.nextInt(150);
        store = new SimStore(this, 1 << workerBits, rng.nextBoolean());
        oracle = new SimOracle(this, layout, store);
        int count = 2 + rng.nextInt(3);
        for (int i = 0; i < count; i++) {
            Machine m = new Machine(i, new SimClock(this, now + rng.nextLong(-20, 21)));
            machines.add(m);
            start(m);
        }
    }

    private String config() {
        return machines.size() + " nodes, layout " + layout + ", ttl " + ttl + ", keepalive "
                + keepalive + ", store timeout " + storeTimeout + ", window " + window
                + (mixedWindows ? " (first node; each its own)" : "") + ", "
                + policy + ", preferred worker " + preferred;
    }

    private void start(Machine m) {
        Node n = new Node(nextNodeId++, m, 1 << layout.bits(Layout.Field.WORKER));
        m.node = n;
        m.window = mixedWindows && nextNodeId > 1 ? 30 + windows.nextLong(2 * ttl) : window;
        trace(n, "starts on machine " + m.index + ", clock " + m.clock + ", window "
                + m.window);
        Snowflake b = Snowflake.newBuilder().registry(store.view(n)).timeSource(m.clock)
                .layout(layout).clockPolicy(policy).leaseTtl(Duration.ofMillis(ttl))
                .keepaliveInterval(Duration.ofMillis(keepalive))
                .storeTimeout(Duration.ofMillis(storeTimeout))
                .reservationWindow(Duration.ofMillis(m.window)).maintenance(Nodes.NO_LOOP);
        if (preferred >= 0) {
            b.preferredWorkerId(preferred);
        }
        n.gen = (SnowflakeGenerator) b.build();
        n.uuids = FencedUuidV7.over(n.gen);
        oracle.afterStep(n);
        m.nextMaintain = now + period(m);
    }

    private long period(Machine m) {
        return Math.min(keepalive, m.window / 3);
    }

    /** A fault on machine {@code m}, or on the store. */
    private void fault(Machine m) {
        Node n = m.node;
        switch (rng.nextInt(7)) {
            case 0 -> {
                long step = rng.nextBoolean() ? rng.nextLong(-30, 31) : rng.nextLong(-3000, 3001);
                m.clock.step(step);
                count(Event.CLOCK_STEP);
                trace(m, "clock steps " + step + " ms");
            }
            case 1 -> {
                m.clock.drift(800 + rng.nextInt(401));
                count(Event.DRIFT);
                trace(m, "clock drifts: " + m.clock);
            }
            case 2 -> {
                m.pausedUntil = now + 1 + rng.nextLong(2 * ttl);
                count(Event.PAUSE);
                trace(m, "paused until " + (m.pausedUntil - T0));
            }
            case 3 -> {
                if (n != null) {
                    trace(n, "crashes (kill -9)");
                    count(Event.CRASH);
                    m.node = null;
                    m.downUntil = now + rng.nextLong(2 * ttl);
                }
            }
            case 4 -> {
                if (n != null) {
                    trace(n, "closes (SIGTERM)");
                    count(Event.CLOSE);
                    n.gen.close();
                    m.node = null;
                    m.downUntil = now + rng.nextLong(50);
                }
            }
            default -> {
                long until = now + 1 + rng.nextLong(3 * ttl);
                store.failover(until);
                count(Event.FAILOVER);
                trace((Machine) null, "fails over until " + (until - T0));
            }
        }
    }

    /** One event of machine {@code m}: a start, a maintenance step or a {@code nextId()}. */
    private void step(Machine m) {
        if (now < m.pausedUntil) {
            return;
        }
        if (m.node == null) {
            if (now >= m.downUntil) {
                start(m);
            }
            return;
        }
        Node n = m.node;
        if (now >= m.nextMaintain) {
            n.gen.lease().maintain();
            count(Event.MAINTAIN);
            if (tracing()) {
                trace(n, "maintain: " + n.gen.lease().state() + " " + n.gen.lease().detail());
            }
            oracle.afterStep(n);
            long p = period(m);
            m.nextMaintain = now + (rng.nextInt(20) == 0 ? 4 * p : p / 2 + rng.nextLong(p));
            return;
        }
        int want = rng.nextInt(4) == 0 ? 1 + rng.nextInt(40) : 1;
        for (int i = 0; i < want; i++) {
            long id;
            try {
                if (uuidCalls.nextBoolean()) {
                    java.util.UUID uuid = n.uuids.next();
                    oracle.issuedUuid(n, uuid);
                    id = FencedUuidV7.idOf(uuid, layout);
                } else {
                    id = n.gen.nextId();
                }
            } catch (IdUnavailableException e) {
                count(Event.REFUSED);
                if (tracing()) {
                    trace(n, "nextId: " + e.reason());
                }
                if (rng.nextBoolean()) { // the hot path woke the maintenance loop
                    m.nextMaintain = Math.min(m.nextMaintain, now + rng.nextLong(250));
                }
                return;
            }
            oracle.issued(n, id);
        }
    }

    String traceText() {
        return trace == null ? "" : trace + "issued " + oracle.issued() + " IDs (" + config() + ")";
    }
}

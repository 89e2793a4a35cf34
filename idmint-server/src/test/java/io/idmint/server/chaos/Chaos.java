package io.idmint.server.chaos;

import io.idmint.server.harness.IdmintProcesses;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Consumer;

/**
 * A chaos run (docs/testing.md, "Chaos harness"): N real {@code idmint serve} nodes on a store
 * started here, a seeded nemesis doing one fault at a time and undoing it, a client and a
 * readiness poller per node recording into a {@link ChaosOracle}, and a report.
 *
 * <p>The nemesis draws every choice (the order of fault kinds, the node, leader or follower, how
 * long a fault holds, the gap before the next) from one {@link Random} seeded with the printed
 * seed, in an order that does not depend on timing: the same seed gives the same faults. Each
 * round does every fault kind the store supports once, in a shuffled order.
 */
public final class Chaos {

    /**
     * What a run does; {@link #fromSystemProperties} reads {@code chaos.*}. {@code faults}: the
     * fault kinds to do, empty for every kind the store supports.
     */
    public record Settings(String store, double minutes, long seed, int nodes,
            long aheadBoundMillis, long graceMillis, int count, long intervalMillis,
            List<Kind> faults) {

        public static Settings fromSystemProperties(double defaultMinutes) {
            String seed = System.getProperty("chaos.seed", "");
            return new Settings(System.getProperty("chaos.store", "etcd"),
                    Double.parseDouble(System.getProperty("chaos.minutes", "" + defaultMinutes)),
                    seed.isEmpty() ? new Random().nextLong() : Long.parseLong(seed),
                    Integer.getInteger("chaos.nodes", 3),
                    Long.getLong("chaos.ahead-bound-ms", 5_000),
                    Long.getLong("chaos.grace-ms", 5_000),
                    Integer.getInteger("chaos.count", 100),
                    Long.getLong("chaos.interval-ms", 20),
                    faults(System.getProperty("chaos.faults", "")));
        }

        /** Fault kinds by name, comma-separated, any case; "" for all. */
        public static List<Kind> faults(String names) {
            List<Kind> out = new ArrayList<>();
            for (String n : names.split(",")) {
                if (n.isBlank()) {
                    continue;
                }
                try {
                    out.add(Kind.valueOf(n.trim().toUpperCase(java.util.Locale.ROOT)
                            .replace('-', '_')));
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException("chaos.faults: '" + n.trim() + "' is no "
                            + "fault kind; the kinds are " + List.of(Kind.values()), e);
                }
            }
            return out;
        }
    }

    /** The fault kinds; which ones a run does depends on the store. */
    public enum Kind {
        NODE_KILL, NODE_PAUSE, NODE_TAKEOVER, MEMBER_KILL, MEMBER_STOP, STORE_OUTAGE,
        CLOCK_FORWARD, CLOCK_BACK
    }

    /** One fault as done: times are the harness's real clock, ms. */
    public record Fault(Kind kind, String node, String what, long startMs, long undoMs) {
    }

    /** Lease settings short enough for faults to bite within seconds. */
    public static final List<String> LEASE = List.of("--lease-ttl", "6s", "--lease-keepalive", "1s",
            "--lease-store-timeout", "4s", "--lease-reservation", "2s");
    public static final long TTL_MILLIS = 6_000;

    private final Settings settings;
    private final Path dir;
    private final Consumer<String> log;
    private final ChaosOracle oracle;
    private final List<ChaosNode> nodes = new ArrayList<>();
    private final List<ChaosNode> extras = new ArrayList<>();
    private final List<Fault> faults = new ArrayList<>();
    private long startMs;
    private long endMs;

    public Chaos(Settings settings, Path dir, Consumer<String> log) {
        this.settings = settings;
        this.dir = dir;
        this.log = log;
        this.oracle = new ChaosOracle(settings.aheadBoundMillis(), settings.graceMillis());
    }

    public ChaosOracle oracle() {
        return oracle;
    }

    /** Runs the whole thing; {@link #report} and {@link ChaosOracle#check} tell the outcome. */
    public void run() throws Exception {
        log.accept("chaos: store " + settings.store() + ", seed " + settings.seed() + ", "
                + settings.nodes() + " nodes, " + settings.minutes() + " min, faults "
                + (settings.faults().isEmpty() ? "all" : settings.faults()) + " (replay with "
                + "-Dchaos.seed=" + settings.seed() + ")");
        try (ChaosStore store = ChaosStore.start(settings.store(), dir);
                IdmintProcesses procs = new IdmintProcesses(dir)) {
            List<String> args = new ArrayList<>(List.of("--registry", store.uri(),
                    "--namespace", "chaos"));
            args.addAll(LEASE);
            for (int i = 0; i < settings.nodes(); i++) {
                nodes.add(new ChaosNode("n" + i, procs, oracle, dir, args, settings.count(),
                        settings.intervalMillis()));
            }
            for (ChaosNode n : nodes) {
                n.start();
            }
            procs.await(Duration.ofSeconds(60), "every node ready",
                    () -> nodes.stream().allMatch(ChaosNode::ready), () -> "");
            startMs = System.currentTimeMillis();
            long deadline = startMs + (long) (settings.minutes() * 60_000);
            nemesis(store, procs, args, deadline);
            long quiet = Math.max(deadline, System.currentTimeMillis() + 10_000);
            Thread.sleep(quiet - System.currentTimeMillis());
            endMs = System.currentTimeMillis();
            for (ChaosNode n : nodes) {
                n.stopThreads();
            }
        }
    }

    /** The fault kinds a run on a store with {@code storeFaults} does. */
    public static List<Kind> kinds(List<ChaosStore.Fault> storeFaults) {
        List<Kind> kinds = new ArrayList<>(List.of(Kind.NODE_KILL, Kind.NODE_PAUSE,
                Kind.NODE_TAKEOVER, Kind.CLOCK_FORWARD, Kind.CLOCK_BACK));
        if (storeFaults.contains(ChaosStore.Fault.MEMBER_KILL)) {
            kinds.add(Kind.MEMBER_KILL);
        }
        if (storeFaults.contains(ChaosStore.Fault.MEMBER_STOP)) {
            kinds.add(Kind.MEMBER_STOP);
        }
        kinds.add(Kind.STORE_OUTAGE);
        return kinds;
    }

    /**
     * One planned fault: its kind, the node (index), leader or follower (store faults), the gap
     * before it, how long it holds (2-6 s, plus what the kind adds), and for CLOCK_BACK whether
     * the step is -1h (else -5s).
     */
    public record Step(Kind kind, int node, boolean leader, long gapMillis, long holdMillis,
            boolean hourBack) {
    }

    /**
     * The seeded fault sequence: rounds that each do every kind once in a shuffled order, every
     * choice drawn from one {@link Random} in a fixed order, so one seed gives one sequence.
     */
    public static final class Plan {
        private final Random rnd;
        private final List<Kind> kinds;
        private final int nodes;
        private final List<Kind> round = new ArrayList<>();

        public Plan(long seed, List<Kind> kinds, int nodes) {
            this.rnd = new Random(seed);
            this.kinds = List.copyOf(kinds);
            this.nodes = nodes;
        }

        public Step next() {
            if (round.isEmpty()) {
                round.addAll(kinds);
                Collections.shuffle(round, rnd);
            }
            Kind kind = round.remove(0);
            long gap = 3_000 + rnd.nextInt(4_000);
            int node = rnd.nextInt(nodes);
            boolean leader = rnd.nextBoolean();
            long hold = 2_000 + rnd.nextInt(4_000);
            return new Step(kind, node, leader, gap, hold, rnd.nextBoolean());
        }
    }

    private void nemesis(ChaosStore store, IdmintProcesses procs, List<String> args,
            long deadline) throws Exception {
        List<Kind> kinds = new ArrayList<>(kinds(store.faults()));
        if (!settings.faults().isEmpty()) {
            List<Kind> unsupported = new ArrayList<>(settings.faults());
            unsupported.removeAll(kinds);
            if (!unsupported.isEmpty()) {
                throw new IllegalArgumentException("chaos.faults: store " + settings.store()
                        + " cannot do " + unsupported + "; it does " + kinds);
            }
            kinds.retainAll(settings.faults());
        }
        Plan plan = new Plan(settings.seed(), kinds, nodes.size());
        while (true) {
            Step step = plan.next();
            Kind kind = step.kind();
            long gap = step.gapMillis();
            ChaosNode target = nodes.get(step.node());
            boolean leader = step.leader();
            long hold = step.holdMillis();
            boolean hourBack = step.hourBack();
            if (System.currentTimeMillis() + gap + hold + TTL_MILLIS + 20_000 > deadline) {
                return;
            }
            Thread.sleep(gap);
            long start = System.currentTimeMillis();
            String what = switch (kind) {
                case NODE_KILL -> {
                    target.node().kill9();
                    Thread.sleep(hold);
                    target.start();
                    yield target.name + " killed (-9), restarted after " + hold + " ms";
                }
                case NODE_PAUSE -> {
                    target.node().signal("STOP");
                    Thread.sleep(TTL_MILLIS + hold);
                    target.node().signal("CONT");
                    yield target.name + " stopped for " + (TTL_MILLIS + hold) + " ms";
                }
                case NODE_TAKEOVER -> takeover(target, procs, args, hold);
                case MEMBER_KILL, MEMBER_STOP, STORE_OUTAGE -> {
                    String done = store.inject(kind == Kind.MEMBER_KILL
                            ? ChaosStore.Fault.MEMBER_KILL : kind == Kind.MEMBER_STOP
                            ? ChaosStore.Fault.MEMBER_STOP : ChaosStore.Fault.OUTAGE, leader);
                    Thread.sleep(hold + 2_000);
                    store.undo();
                    yield done + " for " + (hold + 2_000) + " ms";
                }
                case CLOCK_FORWARD, CLOCK_BACK -> {
                    String offset = kind == Kind.CLOCK_FORWARD ? "+90s" : hourBack ? "-1h"
                            : "-5s";
                    target.setClock(offset);
                    Thread.sleep(8_000 + hold / 2);
                    target.setClock("+0");
                    yield target.name + " wall clock " + offset + " for " + (8_000 + hold / 2)
                            + " ms";
                }
            };
            long undo = System.currentTimeMillis();
            boolean nodeFault = kind.name().startsWith("NODE") || kind.name().startsWith("CLOCK");
            Fault f = new Fault(kind, nodeFault ? target.name : "-", what, start, undo);
            faults.add(f);
            log.accept(String.format("chaos: +%5.1f s %-13s %s", (start - startMs) / 1000.0,
                    kind, what));
            // Let the fleet settle (or not: this is bounded) before the next fault's gap.
            long settle = System.currentTimeMillis() + 20_000;
            while (System.currentTimeMillis() < settle
                    && !nodes.stream().allMatch(ChaosNode::ready)) {
                Thread.sleep(100);
            }
        }
    }

    /**
     * SIGSTOP the target past the lease TTL, start a second node preferring the worker the
     * paused node last issued on, SIGCONT the target (now a zombie), and stop the second node
     * after a while.
     */
    private String takeover(ChaosNode target, IdmintProcesses procs, List<String> args,
            long hold) throws Exception {
        int worker = target.lastWorker();
        target.node().signal("STOP");
        Thread.sleep(TTL_MILLIS + 1_500);
        ChaosNode second = new ChaosNode("x" + extras.size(), procs, oracle, dir, args,
                settings.count(), settings.intervalMillis());
        extras.add(second);
        if (worker >= 0) {
            second.start("--worker", Integer.toString(worker));
        } else {
            second.start();
        }
        Thread.sleep(2_000);
        target.node().signal("CONT");
        Thread.sleep(hold);
        second.stopThreads();
        second.node().sigterm();
        return target.name + " stopped, " + second.name + " started preferring its worker "
                + worker + ", " + target.name + " continued after " + (TTL_MILLIS + 3_500)
                + " ms";
    }

    // ------------------------------------------------------------------ report

    /** The report: totals, per node, per fault kind (recovery), and the fault log. */
    public String report(List<String> violations) {
        StringBuilder b = new StringBuilder();
        long seconds = (endMs - startMs) / 1000;
        b.append(String.format("chaos report: store %s, seed %d, %d nodes, %d s, %,d IDs, "
                + "%d faults%n", settings.store(), settings.seed(), settings.nodes(), seconds,
                oracle.idCount(), faults.size()));
        b.append(String.format("oracle: %s; max ID ahead of real time %d ms (bound %d ms), "
                + "max behind %d ms; readiness grace %d ms%n", violations.isEmpty()
                ? "no violation" : violations.size() + " VIOLATIONS", oracle.maxAheadMillis(),
                settings.aheadBoundMillis(), oracle.maxBehindMillis(), settings.graceMillis()));
        for (String v : violations) {
            b.append("  VIOLATION ").append(v).append('\n');
        }
        b.append(String.format("%-5s %-9s %-10s %-22s %-24s %-22s %s%n", "node", "processes",
                "IDs", "ahead max ms/beyond", "workers used", "calls ok/503/none",
                "readiness 200/503/none"));
        for (ChaosOracle.Track t : oracle.tracks().values()) {
            int[] calls = new int[3];
            int[] polls = new int[3];
            synchronized (t.calls) {
                t.calls.forEach(c -> calls[bucket(c.status())]++);
            }
            synchronized (t.polls) {
                t.polls.forEach(p -> polls[bucket(p.status())]++);
            }
            long holders = t.calls.stream().mapToInt(ChaosOracle.Call::holder).distinct().count();
            b.append(String.format("%-5s %-9d %-10d %-22s %-24s %-22s %s%n", t.slot, holders,
                    t.ids, t.maxAheadMillis + "/" + t.beyondBound,
                    t.workers.size() + " " + t.workers,
                    calls[0] + "/" + calls[1] + "/" + calls[2],
                    polls[0] + "/" + polls[1] + "/" + polls[2]));
        }
        b.append("fault kind     n   target node: unavailable s mean/max, back after undo s max"
                + " | other nodes: unavailable s per node mean/max, back after undo s max\n");
        Map<Kind, List<double[]>> byKind = new EnumMap<>(Kind.class);
        for (int i = 0; i < faults.size(); i++) {
            Fault f = faults.get(i);
            long windowEnd = i + 1 < faults.size() ? faults.get(i + 1).startMs() : endMs;
            for (ChaosNode n : nodes) {
                long[] d = downtime(oracle.tracks().get(n.name), f.startMs(), windowEnd,
                        f.undoMs());
                byKind.computeIfAbsent(f.kind(), k -> new ArrayList<>()).add(new double[] {
                    n.name.equals(f.node()) ? 1 : 0, d[0] / 1000.0, d[1] / 1000.0});
            }
        }
        for (Kind k : byKind.keySet()) {
            List<double[]> rows = byKind.get(k);
            long n = faults.stream().filter(f -> f.kind() == k).count();
            b.append(String.format("%-14s %-3d target %s | others %s%n", k, n,
                    stats(rows, 1), stats(rows, 0)));
        }
        b.append("faults (seconds since the start):\n");
        for (Fault f : faults) {
            b.append(String.format("  +%6.1f .. +%6.1f %-13s %s%n", (f.startMs() - startMs)
                    / 1000.0, (f.undoMs() - startMs) / 1000.0, f.kind(), f.what()));
        }
        return b.toString();
    }

    private static int bucket(int status) {
        return status == 200 ? 0 : status == 503 ? 1 : 2;
    }

    private static String stats(List<double[]> rows, int target) {
        List<double[]> mine = rows.stream().filter(r -> r[0] == target).toList();
        if (mine.isEmpty()) {
            return "-";
        }
        double mean = mine.stream().mapToDouble(r -> r[1]).average().orElse(0);
        double max = mine.stream().mapToDouble(r -> r[1]).max().orElse(0);
        double back = mine.stream().mapToDouble(r -> r[2]).max().orElse(0);
        return String.format("%.1f/%.1f, %.1f", mean, max, back);
    }

    /**
     * How long the node could not issue within [{@code from}, {@code to}): each episode runs
     * from the start of a failed call (503 or no answer) after a success to the end of the next
     * successful call (or {@code to}); and how long after {@code undo} the last episode ended
     * (0 when it ended before).
     */
    public static long[] downtime(ChaosOracle.Track t, long from, long to, long undo) {
        List<ChaosOracle.Call> calls;
        synchronized (t.calls) {
            calls = List.copyOf(t.calls);
        }
        long down = 0;
        long since = -1;
        long lastEnd = -1;
        for (ChaosOracle.Call c : calls) {
            if (c.startMs() < from || c.startMs() >= to) {
                continue;
            }
            if (c.status() != 200) {
                since = since < 0 ? c.startMs() : since;
            } else if (since >= 0) {
                down += c.endMs() - since;
                lastEnd = c.endMs();
                since = -1;
            }
        }
        if (since >= 0) {
            down += to - since;
            lastEnd = to;
        }
        return new long[] {down, Math.max(0, lastEnd - undo)};
    }
}

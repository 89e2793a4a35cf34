package io.idmint.server.chaos;

import io.idmint.Layout;
import io.idmint.server.harness.Http;
import io.idmint.server.harness.IdmintProcesses;
import io.idmint.server.harness.IdmintProcesses.Node;
import io.idmint.testkit.EtcdCluster;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * The scale run (docs/testing.md, "Scale run"): N real {@code idmint serve} nodes on one
 * 3-member etcd on loopback, with the {@code leaf} layout (1,024 worker IDs, no datacenter),
 * the default lease settings and small heaps, in four phases:
 *
 * <ol>
 *   <li><b>start</b>: the nodes one after another, each timed from exec to its first 200 of
 *       {@code /health/ready};
 *   <li><b>idle</b>: etcd's committed proposals (its writes) per second with every node holding
 *       its worker, against the design's N / (lease.reservation / 3);
 *   <li><b>churn</b>: one node killed (-9) and started again every second, round robin, while
 *       every node's client draws IDs into a {@link ChaosOracle} (duplicates, two holders in
 *       one millisecond of a worker); then the workers used, and whether any start found the
 *       pool empty;
 *   <li><b>fill</b>: in a namespace of its own, {@code fill-nodes} nodes with {@code --workers
 *       W} hold every worker ID of {@code fill-layout}; one more node must start NOT READY
 *       saying the pool is full, and become ready once a node stops and releases its workers.
 * </ol>
 */
public final class Scale {

    /** What a run does; {@link #fromSystemProperties} reads {@code scale.*}. */
    public record Settings(int nodes, int idleSeconds, int churnSeconds, int fillNodes,
            String fillLayout) {

        public static Settings fromSystemProperties(Settings defaults) {
            return new Settings(Integer.getInteger("scale.nodes", defaults.nodes()),
                    Integer.getInteger("scale.idle-seconds", defaults.idleSeconds()),
                    Integer.getInteger("scale.churn-seconds", defaults.churnSeconds()),
                    Integer.getInteger("scale.fill-nodes", defaults.fillNodes()),
                    System.getProperty("scale.fill-layout", defaults.fillLayout()));
        }
    }

    public static final Layout LAYOUT = Layout.LEAF;
    public static final int WORKERS = 1 << LAYOUT.bits(Layout.Field.WORKER);
    /** The default lease.reservation: each worker's HWM write comes every third of it. */
    public static final double RESERVATION_SECONDS = 10;
    public static final long TTL_MILLIS = 30_000;
    /** What the etcd registry says when every worker ID is held (of the fill phase). */
    public static final String POOL_FULL = "worker IDs of datacenter 0 in namespace ";

    private final Settings settings;
    private final Path dir;
    private final Consumer<String> log;
    private final ChaosOracle oracle = new ChaosOracle(LAYOUT, 5_000, 5_000);
    private final StringBuilder report = new StringBuilder();
    private final List<String> failures = new ArrayList<>();

    public Scale(Settings settings, Path dir, Consumer<String> log) {
        this.settings = settings;
        this.dir = dir;
        this.log = log;
    }

    /** What went wrong (empty when every check held), after {@link #run}. */
    public List<String> failures() {
        List<String> all = new ArrayList<>(failures);
        all.addAll(oracle.check());
        return all;
    }

    public String report() {
        return report.toString();
    }

    public void run() throws Exception {
        say("scale: %d nodes on a 3-member etcd, layout leaf (%d workers), idle %d s, churn %d s,"
                + " fill %d nodes, layout %s", settings.nodes(), WORKERS, settings.idleSeconds(),
                settings.churnSeconds(), settings.fillNodes(), settings.fillLayout());
        try (EtcdCluster etcd = EtcdCluster.start(3);
                IdmintProcesses procs = new IdmintProcesses(dir)) {
            List<String> args = List.of("--registry", "etcd://" + etcd.endpoints() + "/scale",
                    "--namespace", "scale", "--layout", "leaf");
            List<ChaosNode> nodes = start(procs, args);
            idle(etcd, nodes);
            churn(procs, nodes);
            for (ChaosNode n : nodes) {
                n.stopThreads();
                n.node().sigterm();
            }
            fill(procs, etcd);
        }
    }

    private List<ChaosNode> start(IdmintProcesses procs, List<String> args) throws Exception {
        List<ChaosNode> nodes = new ArrayList<>();
        List<Long> readyMillis = new ArrayList<>();
        for (int i = 0; i < settings.nodes(); i++) {
            ChaosNode n = new ChaosNode("n" + i, procs, oracle, dir, args, 10, 500);
            long t0 = System.nanoTime();
            n.start();
            n.node().awaitReady(Duration.ofSeconds(60));
            long ms = (System.nanoTime() - t0) / 1_000_000;
            readyMillis.add(ms);
            if (ms > 5_000) {
                failures.add("node n" + i + " took " + ms + " ms to be ready (bound 5,000 ms)");
            }
            nodes.add(n);
        }
        List<Long> sorted = readyMillis.stream().sorted().toList();
        say("start: %d nodes, exec to ready (ms): min %d, median %d, max %d; in start order: %s",
                sorted.size(), sorted.get(0), sorted.get(sorted.size() / 2),
                sorted.get(sorted.size() - 1), readyMillis);
        return nodes;
    }

    private void idle(EtcdCluster etcd, List<ChaosNode> nodes) throws InterruptedException {
        int leader = etcd.leader(Duration.ofSeconds(10));
        String metric = "etcd_server_proposals_committed_total";
        long before = etcd.metric(leader, metric);
        long t0 = System.nanoTime();
        Thread.sleep(settings.idleSeconds() * 1000L);
        long after = etcd.metric(leader, metric);
        double seconds = (System.nanoTime() - t0) / 1e9;
        double perSecond = (after - before) / seconds;
        double design = nodes.size() / (RESERVATION_SECONDS / 3);
        say("idle: etcd committed %d proposals in %.1f s = %.2f writes/s with %d nodes holding a "
                + "worker each and drawing IDs; the design's N / (lease.reservation / 3) = %.2f/s "
                + "(ratio %.2f)", after - before, seconds, perSecond, nodes.size(), design,
                perSecond / design);
    }

    private void churn(IdmintProcesses procs, List<ChaosNode> nodes) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(4);
        boolean[] busy = new boolean[nodes.size()];
        AtomicInteger restarts = new AtomicInteger();
        AtomicInteger skipped = new AtomicInteger();
        List<Long> bannerMillis = java.util.Collections.synchronizedList(new ArrayList<>());
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(settings.churnSeconds());
        int k = 0;
        while (System.nanoTime() < end) {
            long tick = System.nanoTime();
            int i = k++ % nodes.size();
            synchronized (busy) {
                if (busy[i]) {
                    skipped.incrementAndGet();
                    i = -1;
                } else {
                    busy[i] = true;
                }
            }
            if (i >= 0) {
                int slot = i;
                pool.submit(() -> {
                    try {
                        ChaosNode n = nodes.get(slot);
                        n.node().kill9();
                        long t0 = System.nanoTime();
                        n.start();
                        bannerMillis.add((System.nanoTime() - t0) / 1_000_000);
                        restarts.incrementAndGet();
                    } catch (Exception e) {
                        synchronized (failures) {
                            failures.add("restart of n" + slot + ": " + e);
                        }
                    } finally {
                        synchronized (busy) {
                            busy[slot] = false;
                        }
                    }
                    return null;
                });
            }
            long wait = TimeUnit.SECONDS.toNanos(1) - (System.nanoTime() - tick);
            if (wait > 0) {
                TimeUnit.NANOSECONDS.sleep(wait);
            }
        }
        pool.shutdown();
        pool.awaitTermination(2, TimeUnit.MINUTES);
        for (ChaosNode n : nodes) {
            n.node().awaitReady(Duration.ofSeconds(TTL_MILLIS / 1000 + 60));
        }
        Set<String> used = new TreeSet<>();
        int most = 0;
        for (ChaosOracle.Track t : oracle.tracks().values()) {
            used.addAll(t.workers);
            most = Math.max(most, t.workers.size());
        }
        int poolFull = 0;
        try (var files = Files.list(dir)) {
            for (Path f : files.filter(p -> p.getFileName().toString().endsWith(".err"))
                    .toList()) {
                if (Files.readString(f).contains(POOL_FULL)) {
                    poolFull++;
                }
            }
        }
        if (poolFull > 0) {
            failures.add(poolFull + " node processes found the worker pool empty in the churn");
        }
        List<Long> sorted = bannerMillis.stream().sorted().toList();
        say("churn: %d restarts (kill -9, then start) in %d s, %d skipped (the node's restart "
                + "still running); exec to banner (ms) min %d, median %d, max %d; %,d IDs checked;"
                + " %d distinct workers used by %d slots, at most %d by one slot; pool empty "
                + "for %d processes", restarts.get(), settings.churnSeconds(), skipped.get(),
                sorted.isEmpty() ? 0 : sorted.get(0),
                sorted.isEmpty() ? 0 : sorted.get(sorted.size() / 2),
                sorted.isEmpty() ? 0 : sorted.get(sorted.size() - 1), oracle.idCount(),
                used.size(), nodes.size(), most, poolFull);
    }

    private void fill(IdmintProcesses procs, EtcdCluster etcd) throws Exception {
        int space = 1 << Layout.parse(settings.fillLayout()).bits(Layout.Field.WORKER);
        int per = space / settings.fillNodes();
        List<String> args = new ArrayList<>(List.of("--registry", "etcd://" + etcd.endpoints()
                + "/fill", "--namespace", "fill", "--layout", settings.fillLayout(),
                "--workers", Integer.toString(per)));
        List<Node> fillers = new ArrayList<>();
        long t0 = System.nanoTime();
        for (int i = 0; i < settings.fillNodes(); i++) {
            Node n = procs.serve("f" + i, java.util.Map.of(), args.toArray(String[]::new));
            n.awaitReady(Duration.ofSeconds(60));
            fillers.add(n);
        }
        long fillMs = (System.nanoTime() - t0) / 1_000_000;
        Node extra = procs.serve("extra", java.util.Map.of(), "--registry", "etcd://"
                + etcd.endpoints() + "/fill", "--namespace", "fill", "--layout",
                settings.fillLayout());
        Http.Response refused = extra.ready();
        if (refused.status() != 503 || !refused.body().contains(POOL_FULL)) {
            failures.add("the node past " + space + " workers answered " + refused.status()
                    + " " + refused.body() + ", not a 503 saying '" + POOL_FULL + "'");
        }
        fillers.get(0).sigterm();
        long readyMs = extra.awaitReady(Duration.ofSeconds(60));
        say("fill: layout %s, %d nodes x --workers %d = %d of %d workers held in %d ms; one "
                + "more node: %d %s; after one node stopped (SIGTERM, workers released) it was "
                + "ready in %d ms", settings.fillLayout(), settings.fillNodes(), per,
                per * settings.fillNodes(), space, fillMs, refused.status(), refused.body(),
                readyMs);
    }

    private void say(String format, Object... args) {
        String line = String.format(format, args);
        report.append(line).append('\n');
        log.accept(line.startsWith("scale: ") ? line : "scale: " + line);
    }

    public static void write(Path out, String report) throws IOException {
        Files.createDirectories(out.getParent());
        Files.writeString(out, report);
    }
}

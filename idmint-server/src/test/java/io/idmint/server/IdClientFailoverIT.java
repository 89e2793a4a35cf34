package io.idmint.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.idmint.IdParts;
import io.idmint.Layout;
import io.idmint.client.IdClient;
import io.idmint.server.harness.IdmintProcesses;
import io.idmint.server.harness.IdmintProcesses.Node;
import io.idmint.testkit.EtcdCluster;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Java client (docs/client.md) against three real {@code serve} processes on one real etcd:
 * four threads draw 2,000,000 IDs through one {@link IdClient} while the server it uses (A) is
 * killed (-9), then the next one (B) is SIGSTOPped past its lease TTL, then SIGCONTed and the
 * third (C) killed too, so that the client must go back to B, which lost its lease and must
 * claim a worker again before it serves. No caller sees an error (the deadline covers B's
 * re-claim), no ID comes twice, each thread's IDs increase, every ID decodes to a worker one of
 * the servers held, and the last ones to a worker B held.
 */
class IdClientFailoverIT {

    static final Layout LAYOUT = Layout.parse("time=41,worker=4,sequence=12");
    private static final Pattern HOLDING = Pattern.compile("holding worker (\\d+) ");
    private static final int THREADS = 4;
    private static final int PER_THREAD = 500_000;
    /** Each thread stops at these counts until the fault of that phase has been done. */
    private static final int[] GATES = {125_000, 250_000, 375_000};

    @TempDir
    Path tmp;

    private IdmintProcesses procs;
    private EtcdCluster etcd;

    @AfterEach
    void stop() throws InterruptedException {
        if (procs != null) {
            procs.close();
        }
        if (etcd != null) {
            etcd.close();
        }
    }

    @Test
    void nextId_fourThreadsWhileOneServerIsKilledAndAnotherStopped_uniqueIncreasingDecodable()
            throws Exception {
        long start = System.currentTimeMillis();
        etcd = EtcdCluster.single();
        procs = new IdmintProcesses(tmp);
        List<Node> nodes = serveThree(procs, etcd);
        Node a = nodes.get(0);
        Node b = nodes.get(1);
        Node c = nodes.get(2);
        List<String> targets = nodes.stream().map(n -> "127.0.0.1:" + n.grpcPort).toList();

        CountDownLatch[] done = {new CountDownLatch(1), new CountDownLatch(1),
            new CountDownLatch(1)};
        AtomicLong drawn = new AtomicLong();
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        // The deadline covers B's way back after its stop: it notices the lost lease, refuses
        // (UNAVAILABLE with retry-after) and claims a worker again, a few seconds with SHORT.
        try (IdClient client = IdClient.builder().endpoints(targets)
                .callTimeout(Duration.ofSeconds(1)).deadline(Duration.ofSeconds(30)).build()) {
            List<Future<long[]>> draws = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                draws.add(pool.submit(() -> draw(client, drawn, done)));
            }
            // A serves first (the first endpoint); killed, the client goes to B.
            awaitDrawn(drawn, GATES[0]);
            a.kill9();
            done[0].countDown();
            // B serves; stopped, it sends nothing and no error: the client goes to C.
            awaitDrawn(drawn, GATES[1]);
            b.signal("STOP");
            long stoppedAt = System.nanoTime();
            done[1].countDown();
            awaitDrawn(drawn, GATES[2]);
            procs.await(Duration.ofSeconds(30), "B stopped past its lease TTL",
                    () -> System.nanoTime() - stoppedAt > TimeUnit.MILLISECONDS.toNanos(
                            RegistryFaultIT.TTL_MILLIS + 1_000), () -> "still within it");
            // B, SIGCONTed, has lost its lease; with C killed it is the only server left.
            b.signal("CONT");
            c.kill9();
            done[2].countDown();

            List<long[]> perThread = new ArrayList<>();
            for (Future<long[]> f : draws) {
                perThread.add(f.get(60, TimeUnit.SECONDS));
            }
            IdClient.Stats stats = client.stats();
            assertThat(stats.failovers()).as(procs.describe("failovers: A killed, B stopped, "
                    + "C killed " + stats)).isGreaterThanOrEqualTo(3);
            assertThat(stats.orderingResets()).as(procs.describe(stats.toString())).isZero();
            checkUniqueAndHeld(perThread, heldWorkers(nodes), start, procs);
            assertThat(b.stderr()).as(procs.describe("B lost its lease while stopped"))
                    .contains("-> LOST");
            Set<Integer> heldByB = heldWorkers(List.of(b));
            for (long[] ids : perThread) {
                int worker = LAYOUT.decode(ids[ids.length - 1]).workerId();
                assertThat(heldByB).as(procs.describe("the worker of a thread's last ID, drawn "
                        + "after C's kill: one B held")).contains(worker);
            }
            System.out.printf("[client failover] %d IDs by %d threads, %s%n",
                    THREADS * PER_THREAD, THREADS, stats);
        } finally {
            pool.shutdownNow();
        }
    }

    private static long[] draw(IdClient client, AtomicLong drawn, CountDownLatch[] done)
            throws InterruptedException {
        long[] out = new long[PER_THREAD];
        int gate = 0;
        for (int i = 0; i < PER_THREAD; i++) {
            if (gate < GATES.length && i == GATES[gate] / THREADS) {
                assertThat(done[gate].await(60, TimeUnit.SECONDS)).as("fault %d", gate).isTrue();
                gate++;
            }
            out[i] = client.nextId();
            drawn.incrementAndGet();
        }
        return out;
    }

    private void awaitDrawn(AtomicLong drawn, long count) throws InterruptedException {
        procs.await(Duration.ofSeconds(60), count + " IDs drawn", () -> drawn.get() >= count,
                () -> drawn.get() + " drawn");
    }

    /** Every worker a node held: the one its banner named and any it took later. */
    static Set<Integer> heldWorkers(List<Node> nodes) {
        Set<Integer> held = new HashSet<>();
        for (Node n : nodes) {
            held.add(n.bannerWorker);
            Matcher m = HOLDING.matcher(n.stderr());
            while (m.find()) {
                held.add(Integer.parseInt(m.group(1)));
            }
        }
        return held;
    }

    /**
     * Three {@code serve} processes, a, b and c, on {@code etcd} with short leases
     * ({@link RegistryFaultIT#SHORT}) and segments in etcd too, each ready: the fleet of the
     * failover tests of every client (ClientsIT's too).
     */
    static List<Node> serveThree(IdmintProcesses procs, EtcdCluster etcd) throws Exception {
        List<String> args = new ArrayList<>(List.of("--registry", "etcd://" + etcd.endpoints()
                + "/idmint-it?timeout=1s", "--namespace", "client", "--layout", LAYOUT.spec(),
                "--segment-store", "etcd://" + etcd.endpoints() + "/idmint-segments"));
        args.addAll(RegistryFaultIT.SHORT);
        List<Node> nodes = procs.serveAll(Map.of(), List.of("a", "b", "c"),
                args.toArray(String[]::new));
        for (Node n : nodes) {
            n.awaitReady(Duration.ofSeconds(30));
        }
        return nodes;
    }

    /**
     * Each caller's IDs increase; no ID comes twice among all; each decodes (in {@link #LAYOUT})
     * to a worker of {@code held} and a time since {@code start}.
     */
    static void checkUniqueAndHeld(List<long[]> perCaller, Set<Integer> held, long start,
            IdmintProcesses procs) {
        for (long[] ids : perCaller) {
            for (int i = 1; i < ids.length; i++) {
                if (Long.compareUnsigned(ids[i], ids[i - 1]) <= 0) {
                    throw new AssertionError("a caller's IDs went back at " + i + ": "
                            + ids[i - 1] + " then " + ids[i]);
                }
            }
        }
        long[] all = perCaller.stream().flatMapToLong(Arrays::stream).toArray();
        Arrays.sort(all);
        long end = System.currentTimeMillis();
        for (int i = 0; i < all.length; i++) {
            if (i > 0 && all[i] == all[i - 1]) {
                throw new AssertionError("ID " + all[i] + " handed out twice");
            }
            IdParts parts = LAYOUT.decode(all[i]);
            if (!held.contains(parts.workerId())) {
                throw new AssertionError(procs.describe("ID " + all[i] + " of worker "
                        + parts.workerId() + ", which no server held (held: " + held + ")").get());
            }
            if (parts.timestampMillis() < start - 1_000 || parts.timestampMillis() > end) {
                throw new AssertionError("ID " + all[i] + " minted at " + parts.timestamp()
                        + ", outside the test");
            }
        }
    }
}

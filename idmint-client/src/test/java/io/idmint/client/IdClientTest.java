package io.idmint.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idmint.FencedUuidV7;
import io.idmint.Layout;
import io.idmint.testkit.IdOracle;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * IdClient against scripted gRPC servers on loopback: uniqueness and order under concurrent
 * takers, failover on refusal and silence, retry-after, the deadline exception and the
 * bounded buffer.
 */
class IdClientTest {

    private final List<AutoCloseable> closing = new ArrayList<>();

    @AfterEach
    void close() throws Exception {
        for (int i = closing.size() - 1; i >= 0; i--) {
            closing.get(i).close();
        }
    }

    private ScriptedServer server(long firstId) {
        ScriptedServer s = new ScriptedServer(firstId);
        closing.add(s);
        return s;
    }

    private IdClient client(IdClient.Builder b) {
        IdClient c = b.build();
        closing.add(c);
        return c;
    }

    @Test
    void nextId_fourThreads_uniqueAndIncreasingPerThreadAndAcrossThem() throws Exception {
        ScriptedServer s = server(1);
        IdClient ids = client(IdClient.builder().endpoints(List.of(s.target())));
        int perThread = 250_000;
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<long[]>> drawn = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                drawn.add(pool.submit(() -> {
                    long[] out = new long[perThread];
                    for (int i = 0; i < perThread; i++) {
                        out[i] = ids.nextId();
                    }
                    return out;
                }));
            }
            Set<Long> all = new HashSet<>();
            for (Future<long[]> f : drawn) {
                long[] out = f.get(60, TimeUnit.SECONDS);
                for (int i = 0; i < out.length; i++) {
                    assertThat(all.add(out[i])).as("ID %d handed out twice", out[i]).isTrue();
                    if (i > 0) {
                        assertThat(out[i]).as("per thread, index %d", i).isGreaterThan(out[i - 1]);
                    }
                }
            }
            assertThat(all).hasSize(4 * perThread);
            // The server counts from 1: every ID handed out is one it sent.
            assertThat(all.stream().mapToLong(Long::longValue).max().getAsLong())
                    .isLessThan(s.next.get());
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void nextUuid_isTheFencedUuidV7OfTheNextId_increasingWithTheIds() {
        ScriptedServer s = server(Layout.SNOWFLAKE.compose(1_000, 0, 5, 0, 0));
        IdClient ids = client(IdClient.builder().endpoints(List.of(s.target())));
        long before = ids.nextId();
        java.util.UUID prev = null;
        for (int i = 0; i < 10_000; i++) {
            java.util.UUID u = ids.nextUuid();
            assertThat(u.version()).isEqualTo(7);
            long id = FencedUuidV7.idOf(u, Layout.SNOWFLAKE);
            assertThat(id).isGreaterThan(before);
            if (prev != null) {
                assertThat(IdOracle.compareUnsigned(u, prev)).isPositive();
            }
            before = id;
            prev = u;
        }
        assertThatThrownBy(() -> IdClient.builder().layout(Layout.parse("time=48,sequence=12")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("has times a UUIDv7 cannot hold");
    }

    @Test
    void nextId_silentServer_failsOverAfterTheCallTimeout() throws Exception {
        ScriptedServer a = server(1);
        ScriptedServer b = server(1_000_000_000L);
        a.silent();
        // A silent A never answers: an ID at all proves the client left it; the deadline is
        // long so that a slow machine (B's first call may itself outlast 300 ms and count one
        // more failover) does not decide the outcome.
        IdClient ids = client(IdClient.builder().endpoints(List.of(a.target(), b.target()))
                .callTimeout(Duration.ofMillis(300)).deadline(Duration.ofSeconds(60)));
        long start = System.nanoTime();
        assertThat(ids.nextId()).as("from B").isGreaterThanOrEqualTo(1_000_000_000L);
        assertThat(System.nanoTime() - start).as("ns to give up on the silent server")
                .isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(300));
        assertThat(ids.stats().failovers()).isPositive();
    }

    @Test
    void nextId_noEndpointServes_throwsWithEachEndpointsLastFailureAtTheDeadline()
            throws Exception {
        ScriptedServer a = server(1);
        a.refuse(30);
        String closedPort;
        try (ServerSocket s = new ServerSocket(0)) {
            closedPort = "127.0.0.1:" + s.getLocalPort();
        }
        IdClient ids = client(IdClient.builder().endpoints(List.of(a.target(), closedPort))
                .deadline(Duration.ofMillis(700)));
        long start = System.nanoTime();
        assertThatThrownBy(ids::nextId).isInstanceOfSatisfying(
                IdServiceUnavailableException.class, e -> {
                    assertThat(e.failures()).containsOnlyKeys(a.target(), closedPort);
                    assertThat(e.failures().get(a.target()))
                            .isEqualTo("UNAVAILABLE: scripted refusal (retry after 30 s)");
                    assertThat(e.failures().get(closedPort)).startsWith("UNAVAILABLE");
                    assertThat(e).hasMessageStartingWith("no endpoint gave an ID within 700 ms");
                });
        assertThat(System.nanoTime() - start).as("ns until the exception")
                .isBetween(TimeUnit.MILLISECONDS.toNanos(700), TimeUnit.SECONDS.toNanos(3));
        // The refill passed A's trailer on: without it, A's 250 ms backoff would have let the
        // refill ask A again within the 700 ms (EndpointsTest checks the waits on a clock).
        assertThat(a.callNanos).as("A asked once: it said to retry after 30 s").hasSize(1);
    }

    @Test
    void nextId_failoverToAServerBehind_dropsIdsNotAboveTheLastAndStaysIncreasing()
            throws Exception {
        ScriptedServer a = server(1_000_000L);
        ScriptedServer b = server(1_000_000L - 50_000L);
        IdClient ids = client(IdClient.builder().endpoints(List.of(a.target(), b.target())));
        List<Long> drawn = new ArrayList<>();
        for (int i = 0; i < 5_000; i++) {
            drawn.add(ids.nextId());
        }
        a.refuse(30);
        while (drawn.size() < 400_000) {
            drawn.add(ids.nextId());
        }
        for (int i = 1; i < drawn.size(); i++) {
            assertThat(drawn.get(i)).as("index %d", i).isGreaterThan(drawn.get(i - 1));
        }
        assertThat(b.next.get()).as("B served").isGreaterThan(1_000_000L);
        assertThat(ids.stats().droppedIds()).as("B's IDs below A's last ones")
                .isPositive().isLessThanOrEqualTo(a.next.get() - (1_000_000L - 50_000L));
        assertThat(ids.stats().orderingResets()).isZero();
    }

    @Test
    void nextId_serverFarBehind_startsTheOrderOverAfterTheCallTimeout() throws Exception {
        ScriptedServer a = server(Long.MAX_VALUE / 2);
        ScriptedServer b = server(1);
        IdClient ids = client(IdClient.builder().endpoints(List.of(a.target(), b.target()))
                .callTimeout(Duration.ofMillis(200)));
        long fromA = ids.nextId();
        a.refuse(30);
        Set<Long> seen = new HashSet<>();
        long id;
        do {
            id = ids.nextId();
            assertThat(seen.add(id)).isTrue();
        } while (id > fromA);
        assertThat(ids.stats().orderingResets()).isEqualTo(1);
        assertThat(ids.stats().droppedIds()).isPositive();
    }

    @Test
    void close_callerWaitingOnASilentServer_failsAtOnce() throws Exception {
        ScriptedServer s = server(1);
        s.silent();
        IdClient ids = IdClient.builder().endpoints(List.of(s.target()))
                .deadline(Duration.ofMinutes(5)).build();
        CompletableFuture<Long> waiting = CompletableFuture.supplyAsync(ids::nextId);
        while (s.callNanos.isEmpty()) {
            Thread.onSpinWait();
        }
        ids.close();
        assertThatThrownBy(() -> waiting.get(10, TimeUnit.SECONDS))
                .hasCauseInstanceOf(IllegalStateException.class)
                .hasMessageContaining("the IdClient is closed");
        assertThatThrownBy(ids::nextId).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void stats_afterABurst_bufferStaysWithinItsSize() throws Exception {
        ScriptedServer s = server(1);
        IdClient ids = client(IdClient.builder().endpoints(List.of(s.target())).bufferSize(5000));
        long max = 0;
        for (int i = 0; i < 300_000; i++) {
            ids.nextId();
            if ((i & 1023) == 0) {
                max = Math.max(max, ids.stats().bufferedIds());
            }
        }
        // The refill appends only while buffered() is below its target (at most bufferSize),
        // and buffered() never reads below what is left: one server batch (1000) lands on top.
        assertThat(max).isLessThanOrEqualTo(5000 + 1000);
        long sent = s.next.get() - 1;
        assertThat(sent - 300_000).as("IDs fetched but not handed out")
                .isLessThanOrEqualTo(5000 + 1000 + IdClient.FLOW_CONTROL_WINDOW / 8 * 2);
    }

    @Test
    void builder_badKnobs_clearErrors() {
        assertThatThrownBy(() -> IdClient.builder().bufferSize(10))
                .hasMessage("buffer size must be 1000 to 16777216 IDs: 10");
        assertThatThrownBy(() -> IdClient.builder().deadline(Duration.ZERO))
                .hasMessage("deadline must be positive: PT0S");
        assertThatThrownBy(() -> IdClient.builder().endpoints(List.of("h1:9090", " ")))
                .hasMessage("blank endpoint in [h1:9090,  ]");
        assertThatThrownBy(() -> IdClient.builder().build())
                .hasMessage("no endpoints: call endpoints(...)");
        assertThatThrownBy(() -> IdClient.builder().trustCertificates(
                Path.of("/nonexistent/ca.pem")))
                .hasMessage("trust certificates file is not readable: /nonexistent/ca.pem");
    }
}

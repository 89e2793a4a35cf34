package io.idmint.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Segment IDs over NextSegmentIds: the buffer, an unknown tag, failover, the deadline. */
class SegmentClientTest {

    @Test
    void next_oneServer_consecutiveInBatchesOfTheSegmentBatch() throws Exception {
        try (ScriptedServer s = new ScriptedServer(1001);
                IdClient ids = IdClient.builder().endpoints(List.of(s.target())).segmentBatch(10)
                        .build()) {
            SegmentClient order = ids.segment("order");
            assertThat(ids.segment("order")).isSameAs(order);
            for (long want = 1001; want < 1036; want++) {
                assertThat(order.next()).isEqualTo(want);
            }
            assertThat(s.callNanos).as("35 IDs in batches of 10").hasSize(4);
        }
    }

    @Test
    void next_unknownTag_namesTheTag() throws Exception {
        try (ScriptedServer s = new ScriptedServer(1);
                IdClient ids = IdClient.connect(s.target())) {
            assertThatThrownBy(() -> ids.segment("invoice").next())
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("unknown segment tag 'invoice' at " + s.target()
                            + ": unknown segment tag 'invoice'");
            assertThatThrownBy(() -> ids.segment(" "))
                    .hasMessage("segment tag must not be blank: ' '");
        }
    }

    @Test
    void next_firstRefuses_failsOverToTheNext() throws Exception {
        try (ScriptedServer a = new ScriptedServer(1);
                ScriptedServer b = new ScriptedServer(5001);
                IdClient ids = IdClient.connect(List.of(a.target(), b.target()))) {
            a.refuse(1);
            // B's own first call may outlast the call timeout on a loaded machine and be asked
            // again: any value B issued proves the failover.
            assertThat(ids.segment("order").next()).isBetween(5001L, b.next.get() - 1);
        }
    }

    @Test
    void next_fourThreadsOnASilentServer_eachThrowsWithinItsOwnDeadline() throws Exception {
        try (ScriptedServer a = new ScriptedServer(1);
                IdClient ids = IdClient.builder().endpoints(List.of(a.target()))
                        .deadline(Duration.ofSeconds(1)).callTimeout(Duration.ofSeconds(5))
                        .build()) {
            a.silent();
            SegmentClient order = ids.segment("order");
            ExecutorService pool = Executors.newFixedThreadPool(4);
            try {
                List<Future<Long>> waits = new ArrayList<>();
                for (int t = 0; t < 4; t++) {
                    waits.add(pool.submit(() -> {
                        long start = System.nanoTime();
                        assertThatThrownBy(order::next)
                                .isInstanceOf(IdServiceUnavailableException.class);
                        return System.nanoTime() - start;
                    }));
                }
                for (Future<Long> w : waits) {
                    // Queued one after another, the fourth would wait 4 s.
                    assertThat(w.get(30, TimeUnit.SECONDS)).as("ns until the exception")
                            .isLessThan(TimeUnit.SECONDS.toNanos(2));
                }
            } finally {
                pool.shutdownNow();
            }
        }
    }

    @Test
    void next_serverAnswersNoIds_backsOffUntilTheDeadline() throws Exception {
        try (ScriptedServer a = new ScriptedServer(1);
                IdClient ids = IdClient.builder().endpoints(List.of(a.target()))
                        .segmentBatch(1).deadline(Duration.ofSeconds(3)).build()) {
            SegmentClient order = ids.segment("order");
            assertThat(order.next()).as("connected").isEqualTo(1);
            a.emptySegments();
            assertThatThrownBy(order::next)
                    .isInstanceOf(IdServiceUnavailableException.class)
                    .hasMessageContaining("UNAVAILABLE: answered no ID of segment tag 'order'");
            // Backoffs of 250 ms doubling: asked at 0, 0.25, 0.75 and 1.75 s within the 3 s.
            assertThat(a.callNanos).hasSizeLessThanOrEqualTo(1 + 4);
        }
    }

    @Test
    void next_noServerAnswers_throwsAtTheDeadline() throws Exception {
        try (ScriptedServer a = new ScriptedServer(1);
                IdClient ids = IdClient.builder().endpoints(List.of(a.target()))
                        .deadline(Duration.ofMillis(600)).build()) {
            a.refuse(0);
            assertThatThrownBy(() -> ids.segment("order").next())
                    .isInstanceOf(IdServiceUnavailableException.class)
                    .hasMessageStartingWith("no ID of segment tag 'order' within 600 ms")
                    .hasMessageContaining("UNAVAILABLE: scripted refusal");
            assertThat(a.callNanos).as("asked again after each backoff").hasSizeGreaterThan(1);
        }
    }
}

package io.idmint.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.Status;
import java.time.Duration;
import java.util.List;
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
            a.refuse(Status.UNAVAILABLE, 1);
            assertThat(ids.segment("order").next()).isEqualTo(5001);
        }
    }

    @Test
    void next_noServerAnswers_throwsAtTheDeadline() throws Exception {
        try (ScriptedServer a = new ScriptedServer(1);
                IdClient ids = IdClient.builder().endpoints(List.of(a.target()))
                        .deadline(Duration.ofMillis(600)).build()) {
            a.refuse(Status.UNAVAILABLE, 0);
            assertThatThrownBy(() -> ids.segment("order").next())
                    .isInstanceOf(IdServiceUnavailableException.class)
                    .hasMessageStartingWith("no ID of segment tag 'order' within 600 ms")
                    .hasMessageContaining("UNAVAILABLE: scripted refusal");
            assertThat(a.callNanos).as("asked again after each backoff").hasSizeGreaterThan(1);
        }
    }
}

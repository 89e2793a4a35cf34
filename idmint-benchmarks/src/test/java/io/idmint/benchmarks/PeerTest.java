package io.idmint.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every generator the peer comparison runs opens, mints distinct IDs, and decodes the time of a
 * fresh ID as now: a wrong epoch or shift would make every published lead wrong by years.
 */
class PeerTest {

    /** Generators whose IDs must carry a timestamp, for the lead columns (others may too). */
    private static final Set<String> TIMED = Set.of("idmint", "idmintFencedUuid",
            "cosidSnowflake", "tsid", "hutool", "yitter", "uuidV7");

    static List<String> impls() {
        return PeerBenchmark.impls();
    }

    @ParameterizedTest
    @MethodSource("impls")
    void open_eachImpl_mintsDistinctIdsWithTheirTimeNow(String impl) throws Exception {
        try (Peer peer = Peer.open(impl)) {
            assertThat(peer.name).isEqualTo(impl);
            if (TIMED.contains(impl)) {
                assertThat(peer.hasTime()).as("%s decodes its time", impl).isTrue();
            }
            assertThat(peer.longs == null).isNotEqualTo(peer.uuids == null);
            Set<Object> seen = new HashSet<>();
            long before = System.currentTimeMillis();
            Object last = null;
            for (int i = 0; i < 1_000; i++) {
                last = peer.longs != null ? (Object) peer.longs.getAsLong() : peer.uuids.get();
                assertThat(seen.add(last)).as("%s minted %s twice", impl, last).isTrue();
            }
            long after = System.currentTimeMillis();
            if (peer.hasTime()) {
                long millis = last instanceof Long id ? peer.millisOf(id)
                        : peer.millisOf((java.util.UUID) last);
                // Yitter may borrow up to its 2,000 ms over-cost budget; the others wait.
                assertThat(millis).as("%s: time of %s", impl, last)
                        .isBetween(before - 1_000, after + 2_000);
            }
        }
    }

    @Test
    void open_unknownImpl_namesItAndTheKnownOnes() {
        assertThatThrownBy(() -> Peer.open("leaf"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith(
                        "unknown impl 'leaf'; known: idmint, idmintStriped, idmintFencedUuid, "
                        + "idmintSegment,");
    }

    @Test
    void impls_listsEachNameOnce() {
        assertThat(PeerBenchmark.impls()).doesNotHaveDuplicates().contains("idmint",
                "jdkAtomicLong");
    }
}

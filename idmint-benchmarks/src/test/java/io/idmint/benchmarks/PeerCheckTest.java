package io.idmint.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.UUID;
import org.junit.jupiter.api.Test;

class PeerCheckTest {

    @Test
    void duplicates_longsAcrossAndWithinThreads_countsEachExtraCopy() {
        long[][] ids = {{5, 1, 9, 3}, {2, 9, 4, 9}, {7, 1}};
        assertThat(PeerCheck.duplicates(ids)).isEqualTo(3);
        assertThat(PeerCheck.duplicates(new long[][] {{3, 1, 2}, {6, 5, 4}})).isZero();
    }

    @Test
    void duplicates_uuidsEqualOnlyInBothHalves_countedOnce() {
        UUID a = new UUID(1, 2);
        UUID[][] ids = {{a, new UUID(1, 3)}, {new UUID(-1, 2), new UUID(1, 2)}};
        assertThat(PeerCheck.duplicates(ids)).isEqualTo(1);
        assertThat(PeerCheck.duplicates(new UUID[][] {{a}, {new UUID(2, 1)}})).isZero();
    }
}

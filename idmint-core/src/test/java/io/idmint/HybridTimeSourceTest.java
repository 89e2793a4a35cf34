package io.idmint;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class HybridTimeSourceTest {

    /** A fake pair of clocks: wall in ms, monotonic in ns, moved by the test. */
    private static final class Clocks {
        long wallMillis = 1_780_000_000_000L;
        long nanos = 5_000_000_000L;
        /** Time that passes between the first and the second read of each pair of reads. */
        long stallNanos;
        private int reads;

        long wall() {
            return afterRead(wallMillis);
        }

        long mono() {
            return afterRead(nanos);
        }

        private long afterRead(long value) {
            if ((reads++ & 1) == 0) {
                nanos += stallNanos;
                wallMillis += stallNanos / 1_000_000;
            }
            return value;
        }

        void pass(long millis) {
            wallMillis += millis;
            nanos += millis * 1_000_000;
        }
    }

    @Test
    void wallClockStepsBack_isReportedNotFollowed() {
        Clocks c = new Clocks();
        HybridTimeSource t = new HybridTimeSource(c::wall, c::mono);
        long start = t.currentTimeMillis();
        c.pass(100);
        c.wallMillis -= 5_000;
        assertThat(t.currentTimeMillis()).isEqualTo(start + 100);
        assertThat(t.wallClockOffsetMillis()).isEqualTo(-5_000);
    }

    @Test
    void wallClockRunsAhead_isFollowedForwards() {
        Clocks c = new Clocks();
        HybridTimeSource t = new HybridTimeSource(c::wall, c::mono);
        long start = t.currentTimeMillis();
        c.wallMillis += 250; // slewed or stepped forwards
        assertThat(t.currentTimeMillis()).isEqualTo(start + 250);
        c.pass(10);
        assertThat(t.currentTimeMillis()).isEqualTo(start + 260);
        assertThat(t.wallClockOffsetMillis()).isZero();
    }

    /** Regression: a stall between the two reads must not push the source ahead of the wall. */
    @Test
    void stallBetweenReads_neverRunsAheadOfTheWallClock() {
        Clocks c = new Clocks();
        HybridTimeSource t = new HybridTimeSource(c::wall, c::mono);
        for (int i = 0; i < 1_000; i++) {
            c.stallNanos = (i % 7) * 3_000_000L;
            c.pass(1);
            long now = t.currentTimeMillis();
            c.stallNanos = 0;
            assertThat(now).isLessThanOrEqualTo(c.wallMillis);
        }
        c.stallNanos = 0;
        assertThat(t.currentTimeMillis()).isLessThanOrEqualTo(c.wallMillis);
        assertThat(t.wallClockOffsetMillis()).isNotNegative();
    }
}

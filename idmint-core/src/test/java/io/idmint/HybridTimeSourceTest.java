package io.idmint;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
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
        HybridTimeSource t = new HybridTimeSource(c::wall, c::mono, 1_000);
        long start = t.currentTimeMillis();
        c.pass(100);
        c.wallMillis -= 5_000;
        assertThat(t.currentTimeMillis()).isEqualTo(start + 100);
        assertThat(t.wallClockOffsetMillis()).isEqualTo(-5_000);
    }

    @Test
    void wallClockRunsAhead_isFollowedForwards() {
        Clocks c = new Clocks();
        HybridTimeSource t = new HybridTimeSource(c::wall, c::mono, 1_000);
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
        HybridTimeSource t = new HybridTimeSource(c::wall, c::mono, 1_000);
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

    @Test
    void forwardStep_withinTheBound_isFollowedAtOnce() {
        Clocks c = new Clocks();
        HybridTimeSource t = new HybridTimeSource(c::wall, c::mono, 1_000);
        long start = t.currentTimeMillis();
        c.wallMillis += 1_000;
        assertThat(t.currentTimeMillis()).isEqualTo(start + 1_000);
        assertThat(t.wallClockOffsetMillis()).isZero();
    }

    @Test
    void forwardStep_beyondTheBound_isHeldBack_andReportedAsAPositiveOffset() {
        Clocks c = new Clocks();
        HybridTimeSource t = new HybridTimeSource(c::wall, c::mono, 1_000);
        long start = t.currentTimeMillis();
        c.wallMillis += 90_000;
        c.pass(10);
        assertThat(t.currentTimeMillis()).isEqualTo(start + 10);
        assertThat(t.wallClockOffsetMillis()).isEqualTo(90_000);
        c.pass(59_000);
        assertThat(t.currentTimeMillis()).as("not yet persisted a minute")
                .isEqualTo(start + 59_010);
    }

    @Test
    void heldBackStep_isFollowed_onceItHasPersistedAMinute() {
        Clocks c = new Clocks();
        HybridTimeSource t = new HybridTimeSource(c::wall, c::mono, 1_000);
        long start = t.currentTimeMillis();
        c.wallMillis += 90_000;
        assertThat(t.currentTimeMillis()).isEqualTo(start);
        c.pass(HybridTimeSource.STEP_PERSIST_MILLIS);
        assertThat(t.currentTimeMillis()).isEqualTo(c.wallMillis);
        assertThat(t.wallClockOffsetMillis()).isZero();
    }

    @Test
    void heldBackStep_isFollowedAtOnce_whenConfirmed_andNeverWhileDisputed() {
        Clocks c = new Clocks();
        HybridTimeSource t = new HybridTimeSource(c::wall, c::mono, 1_000);
        long start = t.currentTimeMillis();
        c.wallMillis += 90_000;
        t.currentTimeMillis();
        for (int i = 0; i < 10; i++) {
            c.pass(30_000);
            t.disputeForwardStep();
            assertThat(t.currentTimeMillis()).isEqualTo(start + (i + 1) * 30_000L);
        }
        t.confirmForwardStep();
        assertThat(t.currentTimeMillis()).isEqualTo(c.wallMillis);
    }

    /** A step set right starts nothing: the next step waits its whole minute afresh. */
    @Test
    void revertedStep_leavesNoHeadStart_forTheNextStep() {
        Clocks c = new Clocks();
        HybridTimeSource t = new HybridTimeSource(c::wall, c::mono, 1_000);
        c.wallMillis += 90_000;
        t.currentTimeMillis();
        c.pass(10_000);
        c.wallMillis -= 90_000; // set right after 10 s
        assertThat(t.wallClockOffsetMillis()).isZero();
        c.pass(55_000);
        long before = t.currentTimeMillis();
        c.wallMillis += 90_000;
        c.pass(1);
        assertThat(t.currentTimeMillis()).isEqualTo(before + 1);
    }

    /** NTP slewing: many small forward corrections, each followed, add up past the bound. */
    @Test
    void slewing_smallForwardCorrections_areAllFollowed() {
        Clocks c = new Clocks();
        HybridTimeSource t = new HybridTimeSource(c::wall, c::mono, 1_000);
        for (int i = 0; i < 1_000; i++) {
            c.pass(1);
            c.wallMillis += 5;
            assertThat(t.currentTimeMillis()).isEqualTo(c.wallMillis);
        }
        assertThat(t.wallClockOffsetMillis()).isZero();
    }

    /**
     * Regression (spinning at the cap): waiting for the next millisecond used to spin for all of
     * it, a whole core per waiting thread. The thread's CPU time over 200 waits for the next
     * millisecond must stay well under the wall time they take; a spinning wait uses about all
     * of it on an idle core, and less only when the machine takes the core away.
     */
    @Test
    void awaitNextMillis_parksInsteadOfSpinning() throws InterruptedException {
        HybridTimeSource t = new HybridTimeSource(1_000);
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long cpuBefore = threads.getCurrentThreadCpuTime();
        long wallBefore = System.nanoTime();
        for (int i = 0; i < 200; i++) {
            long target = t.currentTimeMillis() + 1;
            t.awaitMillis(target);
            assertThat(t.currentTimeMillis()).isGreaterThanOrEqualTo(target);
        }
        long cpu = threads.getCurrentThreadCpuTime() - cpuBefore;
        long wall = System.nanoTime() - wallBefore;
        assertThat(wall).isGreaterThanOrEqualTo(199_000_000L);
        assertThat((double) cpu / wall).as("CPU share of the waits").isLessThan(0.5);
    }
}

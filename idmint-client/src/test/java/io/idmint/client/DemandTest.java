package io.idmint.client;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Batch sizing: about 100 ms of the observed rate, within one batch and the capacity. */
class DemandTest {

    private static final long MS = 1_000_000L;

    @Test
    void target_noDemandYet_oneBatch() {
        assertThat(new Demand(65_536, 0).target()).isEqualTo(Demand.MIN_TARGET);
    }

    @Test
    void target_100kPerSecond_tenThousand() {
        Demand d = new Demand(65_536, 0);
        d.observe(10_000, 100 * MS);
        assertThat(d.rate()).isEqualTo(100_000.0);
        assertThat(d.target()).isEqualTo(10_000);
    }

    @Test
    void target_aBurstAboveTheCapacity_theCapacity() {
        Demand d = new Demand(65_536, 0);
        d.observe(4_000_000, 1_000 * MS);
        assertThat(d.target()).isEqualTo(65_536);
    }

    @Test
    void target_demandStops_fallsBackToOneBatch() {
        Demand d = new Demand(65_536, 0);
        d.observe(100_000, 100 * MS);
        assertThat(d.target()).isEqualTo(65_536);
        long now = 100 * MS;
        int windows = 0;
        while (d.target() > Demand.MIN_TARGET) {
            now += 20 * MS;
            d.observe(100_000, now);
            windows++;
        }
        assertThat(windows).as("20 ms windows until idle").isBetween(5, 40);
    }

    @Test
    void observe_withinTenMilliseconds_waitsForAWholeWindow() {
        Demand d = new Demand(65_536, 0);
        d.observe(1_000_000, 5 * MS);
        assertThat(d.rate()).isZero();
        d.observe(1_000_000, 10 * MS);
        assertThat(d.rate()).isEqualTo(100_000_000.0);
    }

    @Test
    void target_capacityBelowOneBatch_theCapacity() {
        assertThat(new Demand(500, 0).target()).isEqualTo(500);
    }
}

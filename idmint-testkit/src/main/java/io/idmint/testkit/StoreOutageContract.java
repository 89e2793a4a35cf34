package io.idmint.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idmint.IdGenerator;
import io.idmint.IdUnavailableException;
import io.idmint.Layout;
import io.idmint.LeaseState;
import io.idmint.Snowflake;
import io.idmint.spi.WorkerRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The whole store goes down for longer than a node's runway: the node is NOT READY within the
 * runway, refuses IDs, gives its worker up after the store timeout, and is READY again on the
 * same worker by itself once the store is back, with every ID unique and increasing. Timings:
 * lease TTL 3 s, keepalive 1 s, store timeout 3 s, reservation 1 s. A backend's test extends
 * this with a store of its own and supplies a registry client and how to stop and restart the
 * store.
 */
public abstract class StoreOutageContract {

    private final List<AutoCloseable> toClose = new ArrayList<>();

    /** A new registry client of the store, with the backend's call timeouts. */
    protected abstract WorkerRegistry registry() throws Exception;

    /** Takes every member of the store down. */
    protected abstract void stopStore() throws Exception;

    /** Starts the store again on its data; may return before it serves. */
    protected abstract void restartStore() throws Exception;

    /** The layout the node mints with. */
    protected Layout layout() {
        return Layout.SNOWFLAKE;
    }

    /**
     * How long the store stays down once the node gave its worker up, before it is restarted: a
     * backend sets it past its call timeout, so the release and anything else sent when the
     * worker was given up has failed for good, as in any outage that long.
     */
    protected Duration downAfterGivingUp() {
        return Duration.ZERO;
    }

    /** How soon after {@link #restartStore()} the node must be READY again. */
    protected Duration readyAgainWithin() {
        return Duration.ofSeconds(8);
    }

    @AfterEach
    void closeAll() throws Exception {
        for (int i = toClose.size() - 1; i >= 0; i--) {
            toClose.get(i).close();
        }
    }

    @Test
    void storeOutage_pastRunway_notReadyThenRecoversOnItsOwn() throws Exception {
        WorkerRegistry registry = registry();
        toClose.add(registry);
        IdGenerator g = Snowflake.newBuilder().registry(registry).namespace("outage")
                .layout(layout()).leaseTtl(Duration.ofSeconds(3))
                .keepaliveInterval(Duration.ofSeconds(1)).storeTimeout(Duration.ofSeconds(3))
                .reservationWindow(Duration.ofSeconds(1)).build();
        toClose.add(g);
        MintingThread ids = new MintingThread("outage", g);
        toClose.add(ids);
        Poll.until(Duration.ofSeconds(5), "it mints", () -> ids.count() > 200);
        int worker = g.status().workerId();

        stopStore();
        // The runway is at most the 1 s reservation past the last acknowledged renewal, which
        // was at most a renewal period (1/3 s) ago.
        Duration toNotReady = Poll.until(Duration.ofSeconds(5), "NOT READY once the runway ends",
                () -> !g.status().ready());
        assertThat(toNotReady).as("within the store timeout").isLessThan(Duration.ofSeconds(3));
        assertThatThrownBy(g::nextId).isInstanceOf(IdUnavailableException.class);
        // Past the store timeout (3 s) the worker is given up; still no IDs.
        Poll.until(Duration.ofSeconds(6), "the worker is given up",
                () -> g.status().state() == LeaseState.LOST
                        || g.status().state() == LeaseState.ACQUIRING);
        assertThatThrownBy(g::nextId).isInstanceOf(IdUnavailableException.class);
        int before = ids.count();
        if (!downAfterGivingUp().isZero()) {
            Thread.sleep(downAfterGivingUp().toMillis()); // the outage's length, not a wait
        }

        restartStore();
        Duration toReady = Poll.until(readyAgainWithin(), "READY again after the store is back",
                () -> g.status().ready());
        Poll.until(Duration.ofSeconds(5), "it mints again", () -> ids.count() > before + 200);
        assertThat(g.status().workerId()).as("the worker held before the outage")
                .isEqualTo(worker);
        ids.close();
        long[] all = ids.ids();
        IdOracle.assertStrictlyIncreasing(all);
        IdOracle.assertUnique(all);
        System.out.println("store outage: NOT READY after " + toNotReady.toMillis()
                + " ms, READY again " + toReady.toMillis() + " ms after the store restarted");
    }
}

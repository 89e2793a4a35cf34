package io.idmint.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.idmint.GeneratorListener;
import io.idmint.IdGenerator;
import io.idmint.LeaseState;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.IntSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A hung store member (its connections stay open and answer nothing, as after SIGSTOP) costs a
 * node no worker: the member the node talks to hangs for 8 s, and the node keeps its worker,
 * never goes {@code LOST} or {@code ACQUIRING}, and mints again once the member is back. A
 * backend's test extends this with a replicated store of its own and supplies a node with its
 * timings ({@link #generator}), the member that node talks to and how to hang and resume one;
 * scenarios only one store can set up are that store's tests, through {@link #hangAndCheck}.
 */
public abstract class HungMemberContract {

    /** How long the member stays hung. */
    protected static final Duration HUNG = Duration.ofSeconds(8);

    private final List<String> transitions = Collections.synchronizedList(new ArrayList<>());
    private final List<AutoCloseable> toClose = new ArrayList<>();

    /**
     * A started generator of a node with the store's timings, reporting to {@code listener}; the
     * contract closes it after the test.
     */
    protected abstract IdGenerator generator(GeneratorListener listener) throws Exception;

    /** The member the node of {@code generator} talks to now. */
    protected abstract int memberInUse(IdGenerator generator);

    /** Freezes a member: its connections stay open and answer nothing. */
    protected abstract void hang(int member) throws Exception;

    /** Lets a {@linkplain #hang hung} member run again. */
    protected abstract void resume(int member) throws Exception;

    /**
     * Whether the node must go on issuing throughout (state {@code ACTIVE} or {@code DEGRADED},
     * an ID at least every second, no call refused), not just keep its worker.
     */
    protected boolean issuesThroughout() {
        return false;
    }

    /** A listener that records the lease transitions the checks look at. */
    protected final GeneratorListener listener() {
        return new GeneratorListener() {
            @Override
            public void onStateChange(LeaseState from, LeaseState to, String detail) {
                transitions.add(from + " -> " + to + ": " + detail);
            }
        };
    }

    /** Closes {@code c} after the test, in the reverse order of registration. */
    protected final <T extends AutoCloseable> T closeLater(T c) {
        toClose.add(c);
        return c;
    }

    @AfterEach
    void closeAll() throws Exception {
        for (int i = toClose.size() - 1; i >= 0; i--) {
            toClose.get(i).close();
        }
    }

    @Test
    void memberInUseHungForEightSeconds_nodeKeepsItsWorkerAndIssues() throws Exception {
        IdGenerator g = closeLater(generator(listener()));
        hangAndCheck(g, () -> memberInUse(g));
    }

    /**
     * Mints from {@code g}, hangs the member {@code hung} names once it does, for {@link #HUNG},
     * and checks the node throughout and after.
     */
    protected final void hangAndCheck(IdGenerator g, IntSupplier hung) throws Exception {
        MintingThread ids = closeLater(new MintingThread("hung", g));
        // On a loaded machine a first call may miss its deadline; build() then returns while
        // the maintenance loop claims a moment later, so the worker is read once it mints.
        Poll.until(Duration.ofSeconds(10), "it mints", () -> ids.count() > 100
                && g.status().state() == LeaseState.ACTIVE);
        int worker = g.status().workerId();
        int member = hung.getAsInt();
        transitions.clear();

        hang(member);
        long paused = System.nanoTime();
        try {
            watch(g, worker, ids, paused + HUNG.toNanos());
        } finally {
            resume(member);
        }
        int before = ids.count();
        if (issuesThroughout()) {
            watch(g, worker, ids, System.nanoTime() + Duration.ofSeconds(3).toNanos());
        }
        Poll.until(Duration.ofSeconds(10), "it mints after the member is back",
                () -> ids.count() > before + 1000 && g.status().ready());
        ids.close();
        IdOracle.assertStrictlyIncreasing(ids.ids());
        assertThat(g.status().workerId()).isEqualTo(worker);
        assertThat(transitions).as("lease transitions while member %d was hung", member)
                .noneMatch(t -> t.contains("-> LOST") || t.contains("-> ACQUIRING"));
        if (issuesThroughout()) {
            assertThat(ids.refused()).as("IDs refused while member %d was hung; transitions %s",
                    member, transitions).isZero();
        }
        System.out.println("hung member " + member + ": " + ids.count() + " IDs, "
                + ids.refused() + " refused, transitions " + transitions);
    }

    /** Until {@code untilNanos}, every 20 ms: the node keeps its worker (and issues). */
    private void watch(IdGenerator g, int worker, MintingThread ids, long untilNanos)
            throws InterruptedException {
        while (System.nanoTime() < untilNanos) {
            var status = g.status();
            assertThat(status.workerId()).as("worker; transitions %s", transitions)
                    .isEqualTo(worker);
            assertThat(transitions).noneMatch(t -> t.contains("-> LOST"));
            if (issuesThroughout()) {
                assertThat(status.state()).as("lease state; transitions %s", transitions)
                        .isIn(LeaseState.ACTIVE, LeaseState.DEGRADED);
                assertThat(System.nanoTime() - ids.lastIdNanos()).as("ns since the last ID; "
                        + "transitions %s", transitions).isLessThan(1_000_000_000L);
            }
            Thread.sleep(20); // the fault's length is the test's, not a wait for a condition
        }
    }
}

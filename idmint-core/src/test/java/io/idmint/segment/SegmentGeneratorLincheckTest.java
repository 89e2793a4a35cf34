package io.idmint.segment;

import static io.idmint.segment.SegmentGeneratorTest.T0;

import io.idmint.spi.RegistryException;
import io.idmint.testkit.InMemoryRangeStore;
import io.idmint.testkit.ManualTimeSource;
import java.util.HashSet;
import java.util.Set;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.StressOptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Lincheck on the segment generator's hot paths: the cursor's atomic increment, the switch to the
 * prefetched range and the wait for a fetch. Ranges are 2 IDs long, so every scenario switches
 * ranges several times and every range's first ID starts a prefetch; the manual clock stands
 * still, so no wait times out and the sequential run of a scenario is deterministic: one
 * generator over a fresh store issues 1, 2, 3, ...
 *
 * <ul>
 *   <li>{@link Issue}: {@link SegmentSequence#next()} in {@link SegmentOrder#ISSUE} order,
 *       checked for linearizability against the same generator run sequentially: every result
 *       must be what some sequential order of the calls gives, which pins uniqueness, issue
 *       order in real time and density (no ID skipped or issued twice).
 *   <li>{@link Batches}: {@code next()} and {@code next(ids, 0, 3)} mixed, in issue order. A batch
 *       that crosses ranges takes each range's part in its own step, so it is not one atomic
 *       step; each operation checks its own IDs (increasing, never issued before, above every ID
 *       of every call that had returned before it started) and returns {@code "ok"} or what was
 *       wrong.
 *   <li>{@link Relaxed}: the same checks in {@link SegmentOrder#RELAXED} order, less the one
 *       across threads: above every ID the same thread had before, instead.
 * </ul>
 *
 * Each runs in model-checking mode (Lincheck's scheduler explores interleavings, switching
 * threads at every shared-memory access), where the fetch runs on the caller's thread
 * (a caller-thread fetch executor) because the model checker schedules only the callers;
 * {@link Issue} and {@link Relaxed} also in stress mode, on real threads with the generator's own
 * fetch threads.
 */
@Tag("model-check")
class SegmentGeneratorLincheckTest {

    static final int BATCH = 3;

    /**
     * Model checking schedules only the callers, so there the fetch runs on the caller's thread;
     * stress runs the generator's own fetch threads.
     */
    static SegmentSequence newSequence(SegmentOrder order, boolean fetchOnCallerThread) {
        InMemoryRangeStore store = new InMemoryRangeStore();
        try {
            store.create("t", 1, 2);
        } catch (RegistryException e) {
            throw new AssertionError(e);
        }
        Segments b = Segments.newBuilder().store(store).timeSource(new ManualTimeSource(T0))
                .step(2).minStep(2).maxStep(2).order(order);
        return (fetchOnCallerThread ? b.fetchExecutor(Runnable::run) : b).build().sequence("t");
    }

    /** Linearizability of {@code next()}: the sequential specification is this class itself. */
    public static class Issue {
        private final SegmentSequence ids;

        public Issue() {
            this(false);
        }

        Issue(boolean fetchOnCallerThread) {
            ids = newSequence(SegmentOrder.ISSUE, fetchOnCallerThread);
        }

        @Operation
        public long next() {
            return ids.next();
        }
    }

    /** {@link Issue} for the model checker. */
    public static class IssueModel extends Issue {
        public IssueModel() {
            super(true);
        }
    }

    /** What a call must hold to, checked after it returned. */
    abstract static class Checked {
        final SegmentSequence ids;
        private final Set<Long> issued = new HashSet<>();
        private final ThreadLocal<long[]> lastOfThread = ThreadLocal.withInitial(() -> new long[1]);
        /** The largest ID of the calls that have returned (and been checked) so far. */
        private volatile long returned;

        Checked(SegmentOrder order, boolean fetchOnCallerThread) {
            ids = newSequence(order, fetchOnCallerThread);
        }

        String nextChecked(boolean acrossThreads) {
            long floor = acrossThreads ? returned : lastOfThread.get()[0];
            return check(floor, new long[] {ids.next()}, acrossThreads);
        }

        String batchChecked(boolean acrossThreads) {
            long floor = acrossThreads ? returned : lastOfThread.get()[0];
            long[] batch = new long[BATCH];
            ids.next(batch, 0, BATCH);
            return check(floor, batch, acrossThreads);
        }

        /**
         * The bookkeeping is under a lock of its own, after the generator call returned, so it
         * cannot hide a race inside the generator.
         */
        private synchronized String check(long floor, long[] got, boolean acrossThreads) {
            long prev = floor;
            for (long id : got) {
                if (id <= prev) {
                    return "ID " + id + " is not above " + prev + " (an earlier ID of this call, "
                            + (acrossThreads ? "or of a call that returned first)"
                                    : "or of this thread)");
                }
                if (!issued.add(id)) {
                    return "duplicate ID " + id;
                }
                prev = id;
            }
            lastOfThread.get()[0] = prev;
            returned = Math.max(returned, prev);
            return "ok";
        }
    }

    /** Uniqueness and real-time order of {@code next()} mixed with batches, in issue order. */
    public static class Batches extends Checked {
        public Batches() {
            super(SegmentOrder.ISSUE, true);
        }

        @Operation
        public String next() {
            return nextChecked(true);
        }

        @Operation
        public String nextBatch() {
            return batchChecked(true);
        }
    }

    /** Uniqueness and per-thread order of {@code next()} and batches, in relaxed order. */
    public static class Relaxed extends Checked {
        public Relaxed() {
            this(false);
        }

        Relaxed(boolean fetchOnCallerThread) {
            super(SegmentOrder.RELAXED, fetchOnCallerThread);
        }

        @Operation
        public String next() {
            return nextChecked(false);
        }

        @Operation
        public String nextBatch() {
            return batchChecked(false);
        }
    }

    /** {@link Relaxed} for the model checker. */
    public static class RelaxedModel extends Relaxed {
        public RelaxedModel() {
            super(true);
        }
    }

    @Test
    void next_stress_isLinearizable() {
        stress().check(Issue.class);
    }

    @Test
    void next_modelChecking_isLinearizable() {
        modelChecking().check(IssueModel.class);
    }

    @Test
    void nextAndBatches_modelChecking_uniqueAndInRealTimeOrder() {
        modelChecking().check(Batches.class);
    }

    @Test
    void relaxed_stress_uniqueAndIncreasingPerThread() {
        stress().check(Relaxed.class);
    }

    @Test
    void relaxed_modelChecking_uniqueAndIncreasingPerThread() {
        modelChecking().check(RelaxedModel.class);
    }

    /*
     * Budgets: 30 s of wall time for the five on a quiet 2-core machine, up to 2 minutes on a
     * loaded one, most of it Lincheck instrumenting classes; each model check found a planted
     * lost update (a plain read and write of the cursor) in its first iterations. Batches are
     * not stressed here: SegmentRelaxedOrderTest mixes them with single calls on 8 threads.
     */

    private static StressOptions stress() {
        return new StressOptions().threads(2).actorsPerThread(3).actorsBefore(2).actorsAfter(1)
                .iterations(5).invocationsPerIteration(100);
    }

    private static ModelCheckingOptions modelChecking() {
        return new ModelCheckingOptions().threads(2).actorsPerThread(3).actorsBefore(2)
                .actorsAfter(1).iterations(5).invocationsPerIteration(50);
    }
}

package io.idmint;

import java.util.ArrayList;
import java.util.List;

/**
 * An immutable snapshot of a generator, for health checks and status pages.
 *
 * <p>A generator that mints from one worker ID has one entry in {@link #workers()}, and the other
 * fields are that worker's. A striped generator ({@link Snowflake#workers(int)}) has one entry
 * per worker, and the other fields sum them up: see {@link #workers()}.
 *
 * @param state where the worker lease stands; striped: {@link LeaseState#ACTIVE} when every
 *     worker is, {@link LeaseState#DEGRADED} when at least one worker issues but not every
 *     worker is {@code ACTIVE}, else {@code LOST} if any worker is lost, {@code RELEASED} if all
 *     are released, and {@code ACQUIRING} otherwise
 * @param layout the layout IDs are minted in
 * @param datacenterId the datacenter ID, or -1 while no worker is held
 * @param workerId the worker ID (striped: the first worker's), or -1 while none is held
 * @param runwayMillis how long IDs can still be issued without a renewal; 0 when none can
 *     (striped: the shortest runway among the workers that can issue)
 * @param clockOffsetMillis the wall clock minus the generator's clock (negative: wall stepped back)
 * @param detail a sentence on why the state is what it is, for operators
 * @param workers every worker the generator mints from, in stripe order
 * @param reason why no ID can be issued, or null while IDs are issued
 * @param fleetSkewMillis this node's clock minus the fleet's at the last fleet clock check
 *     (positive: ahead), 0 inside the bounds the fleet allows or when there was none to compare
 *     with (docs/design.md, "Clock checks")
 */
public record GeneratorStatus(LeaseState state, Layout layout, int datacenterId, int workerId,
        long runwayMillis, long clockOffsetMillis, String detail, List<Worker> workers,
        IdUnavailableException.Reason reason, long fleetSkewMillis) {

    /**
     * One worker of a generator.
     *
     * @param datacenterId the datacenter ID, or -1 while no worker is held
     * @param workerId the worker ID, or -1 while none is held
     * @param state where this worker's lease stands
     * @param runwayMillis how long this worker can still issue without a renewal; 0 when it
     *     cannot
     * @param detail a sentence on why the state is what it is
     */
    public record Worker(int datacenterId, int workerId, LeaseState state, long runwayMillis,
            String detail) {

        /** Whether this worker can issue IDs now. */
        public boolean ready() {
            return (state == LeaseState.ACTIVE || state == LeaseState.DEGRADED)
                    && runwayMillis > 0;
        }
    }

    public GeneratorStatus {
        workers = List.copyOf(workers);
    }

    /** A status with no fleet skew measured, not ready for reason {@code NO_LEASE}. */
    public GeneratorStatus(LeaseState state, Layout layout, int datacenterId, int workerId,
            long runwayMillis, long clockOffsetMillis, String detail, List<Worker> workers) {
        this(state, layout, datacenterId, workerId, runwayMillis, clockOffsetMillis, detail,
                workers, (state == LeaseState.ACTIVE || state == LeaseState.DEGRADED)
                        && runwayMillis > 0 ? null : IdUnavailableException.Reason.NO_LEASE, 0);
    }

    /** The status of a generator that mints from one worker ID, with no fleet skew measured. */
    public GeneratorStatus(LeaseState state, Layout layout, int datacenterId, int workerId,
            long runwayMillis, long clockOffsetMillis, String detail) {
        this(state, layout, datacenterId, workerId, runwayMillis, clockOffsetMillis, detail,
                List.of(new Worker(datacenterId, workerId, state, runwayMillis, detail)));
    }

    /** The status of a generator that mints from one worker ID. */
    public GeneratorStatus(LeaseState state, Layout layout, int datacenterId, int workerId,
            long runwayMillis, long clockOffsetMillis, String detail,
            IdUnavailableException.Reason reason, long fleetSkewMillis) {
        this(state, layout, datacenterId, workerId, runwayMillis, clockOffsetMillis, detail,
                List.of(new Worker(datacenterId, workerId, state, runwayMillis, detail)), reason,
                fleetSkewMillis);
    }

    /**
     * Whether IDs can be issued now. Striped: while at least one worker can issue (threads whose
     * own worker cannot move to one that can); {@link #state()} is then {@code DEGRADED} unless
     * every worker is {@code ACTIVE}.
     */
    public boolean ready() {
        return (state == LeaseState.ACTIVE || state == LeaseState.DEGRADED) && runwayMillis > 0;
    }

    /**
     * A striped generator's status from its workers' (the rule is on {@link #state()}): ready
     * while any worker can issue.
     */
    static GeneratorStatus ofStripes(Layout layout, List<Worker> workers,
            long clockOffsetMillis, IdUnavailableException.Reason reason, long fleetSkewMillis) {
        int issuing = 0;
        int active = 0;
        int lost = 0;
        int released = 0;
        long runway = Long.MAX_VALUE;
        List<String> problems = new ArrayList<>();
        for (int i = 0; i < workers.size(); i++) {
            Worker w = workers.get(i);
            if (w.ready()) {
                issuing++;
                runway = Math.min(runway, w.runwayMillis());
            }
            active += w.ready() && w.state() == LeaseState.ACTIVE ? 1 : 0;
            lost += w.state() == LeaseState.LOST ? 1 : 0;
            released += w.state() == LeaseState.RELEASED ? 1 : 0;
            if (!w.ready() || w.state() != LeaseState.ACTIVE) {
                problems.add("stripe " + i + (w.workerId() < 0 ? "" : " (worker "
                        + w.workerId() + ")") + " " + w.state() + ": " + w.detail());
            }
        }
        int k = workers.size();
        LeaseState state = active == k ? LeaseState.ACTIVE
                : issuing > 0 ? LeaseState.DEGRADED
                : lost > 0 ? LeaseState.LOST
                : released == k ? LeaseState.RELEASED
                : LeaseState.ACQUIRING;
        String detail = active == k ? "holding workers " + String.join(", ", workers.stream()
                .map(w -> Integer.toString(w.workerId())).toList()) + " of datacenter "
                + workers.get(0).datacenterId()
                : issuing + " of " + k + " workers issuing; " + String.join("; ", problems);
        Worker first = workers.get(0);
        return new GeneratorStatus(state, layout, first.datacenterId(), first.workerId(),
                issuing > 0 ? runway : 0, clockOffsetMillis, detail, workers,
                issuing > 0 ? null : reason, fleetSkewMillis);
    }
}

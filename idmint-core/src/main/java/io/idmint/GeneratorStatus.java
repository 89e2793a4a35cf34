package io.idmint;

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
 */
public record GeneratorStatus(LeaseState state, Layout layout, int datacenterId, int workerId,
        long runwayMillis, long clockOffsetMillis, String detail, List<Worker> workers) {

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

    /** The status of a generator that mints from one worker ID. */
    public GeneratorStatus(LeaseState state, Layout layout, int datacenterId, int workerId,
            long runwayMillis, long clockOffsetMillis, String detail) {
        this(state, layout, datacenterId, workerId, runwayMillis, clockOffsetMillis, detail,
                List.of(new Worker(datacenterId, workerId, state, runwayMillis, detail)));
    }

    /**
     * Whether IDs can be issued now. Striped: while at least one worker can issue (threads whose
     * own worker cannot move to one that can); {@link #state()} is then {@code DEGRADED} unless
     * every worker is {@code ACTIVE}.
     */
    public boolean ready() {
        return (state == LeaseState.ACTIVE || state == LeaseState.DEGRADED) && runwayMillis > 0;
    }
}

package io.idmint;

/**
 * One simulated node's clock over the simulation's global time ({@link Simulation#now()}, which
 * is also the store's time). The wall clock can step either way and drift (a rate in per mille
 * of the global rate, at least 500); the monotonic clock runs at the global rate and never steps,
 * which is the model's one assumption about clocks: a lease deadline measured on the node's
 * monotonic clock and the store's lease expiry measure the same time.
 *
 * <p>Nothing blocks: {@link #awaitMillis} moves global time on until this wall clock has reached
 * the target, as if every other node had taken no step during the wait. The generator waits at
 * most its maximum clock wait or for the next tick, so waits stay short.
 */
final class SimClock implements TimeSource {

    private final Simulation sim;
    private long wallAnchor;
    private long globalAnchor;
    private int ratePermille = 1000;

    SimClock(Simulation sim, long wallMillis) {
        this.sim = sim;
        this.wallAnchor = wallMillis;
        this.globalAnchor = sim.now();
    }

    @Override
    public long currentTimeMillis() {
        return wallAnchor + Math.floorDiv((sim.now() - globalAnchor) * ratePermille, 1000);
    }

    @Override
    public long nanoTime() {
        return sim.now() * 1_000_000L;
    }

    @Override
    public void awaitMillis(long unixMillis) {
        long behind = unixMillis - currentTimeMillis();
        if (behind <= 0) {
            return;
        }
        sim.count(Simulation.Event.CLOCK_WAIT);
        reanchor();
        long global = globalAnchor + -Math.floorDiv(-behind * 1000, ratePermille);
        sim.advanceTo(global);
    }

    /** Steps the wall clock by {@code millis} (negative: back), as NTP or an operator might. */
    void step(long millis) {
        reanchor();
        wallAnchor += millis;
    }

    /** From now on the wall clock runs at {@code permille} of the global rate. */
    void drift(int permille) {
        if (permille < 500) {
            throw new IllegalArgumentException("drift rate must be >= 500 permille, got "
                    + permille);
        }
        reanchor();
        ratePermille = permille;
    }

    private void reanchor() {
        wallAnchor = currentTimeMillis();
        globalAnchor = sim.now();
    }

    @Override
    public String toString() {
        return "wall " + (currentTimeMillis() - sim.now()) + " ms off, rate " + ratePermille
                + "‰";
    }
}

package io.idmint;

import io.idmint.spi.Claim;
import io.idmint.spi.ClaimRequest;
import io.idmint.spi.RegistryException;
import io.idmint.spi.RegistryException.Kind;
import io.idmint.spi.WorkerRecord;
import io.idmint.spi.WorkerRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.function.Supplier;

/**
 * The simulated store: one linearizable compare-and-set register per worker ID (holder, fencing
 * token, HWM, lease expiry in store time, which is the simulation's global time). Each node
 * reaches it through its own {@link #view}, so the store knows who calls, and every call can
 * meet a fault the {@link Simulation} draws: lost before it applies, applied with the answer
 * lost, or answered late (the global time moves on before the call returns; an answer later
 * than the store timeout is a timeout, so the caller gets {@code UNAVAILABLE}). During a
 * member failover every call fails unapplied.
 *
 * <p>It also records, per node, what it acknowledged: the HWM read by each claim whose answer
 * arrived and the highest reservation acknowledged since. The oracle checks issued IDs against
 * that, not against the stored HWM.
 */
final class SimStore {

    /** What happens to one call. */
    enum Fault { NONE, LOST, ACK_LOST, DELAYED }

    private interface Op<T> {
        T apply(long now) throws RegistryException;
    }

    private final Simulation sim;
    private final int[] holder;
    /** The last node that claimed each worker, to count takeovers. */
    private final int[] lastHolder;
    private final long[] token;
    private final long[] hwm;
    private final long[] leaseUntil;
    /** How far ahead of its clock each worker's holder said it reserves. */
    private final long[] maxAhead;
    /** Whether an expired lease fails an extend (etcd) or lives on until another claim (SQL). */
    private final boolean revokeExpired;
    private long nextToken = 1;
    private long failoverUntil = Long.MIN_VALUE;

    SimStore(Simulation sim, int workers, boolean revokeExpired) {
        this.sim = sim;
        this.holder = new int[workers];
        this.lastHolder = new int[workers];
        this.token = new long[workers];
        this.hwm = new long[workers];
        this.leaseUntil = new long[workers];
        this.maxAhead = new long[workers];
        this.revokeExpired = revokeExpired;
        java.util.Arrays.fill(holder, -1);
        java.util.Arrays.fill(lastHolder, -1);
        java.util.Arrays.fill(leaseUntil, Long.MIN_VALUE);
    }

    /** Every call fails, unapplied, until {@code until} (store time). */
    void failover(long until) {
        failoverUntil = Math.max(failoverUntil, until);
    }

    /** Whether the store still has {@code node} as the live holder of {@code worker}. */
    boolean holds(Simulation.Node node, int worker) {
        return worker >= 0 && worker < holder.length && holder[worker] == node.id
                && leaseUntil[worker] >= sim.now();
    }

    String describe(int worker) {
        return "worker " + worker + " held by node#" + holder[worker] + " until "
                + (leaseUntil[worker] - Simulation.T0) + ", hwm " + (hwm[worker] - Simulation.T0);
    }

    /** The registry as node {@code n} reaches it. */
    WorkerRegistry view(Simulation.Node n) {
        return new WorkerRegistry() {
            @Override
            public Claim claim(ClaimRequest request) throws RegistryException {
                Claim c = call(n, () -> "claim", now -> doClaim(n, request, now));
                n.claimed(c.workerId(), c.hwmMillis());
                return c;
            }

            @Override
            public long extend(Claim claim, long untilMillis) throws RegistryException {
                long t = call(n, () -> "extend w" + claim.workerId() + " to "
                        + (untilMillis - Simulation.T0), now -> doExtend(claim, untilMillis, now));
                n.acknowledged(claim.workerId(), untilMillis);
                return t;
            }

            @Override
            public void release(Claim claim, long finalHwmMillis) throws RegistryException {
                call(n, () -> "release w" + claim.workerId(), now -> {
                    int w = owned(claim, now);
                    hwm[w] = Math.max(finalHwmMillis, claim.hwmMillis());
                    token[w] = nextToken++;
                    holder[w] = -1;
                    leaseUntil[w] = Long.MIN_VALUE;
                    return null;
                });
            }

            @Override
            public List<WorkerRecord> list(String namespace) throws RegistryException {
                return call(n, () -> "list", now -> {
                    List<WorkerRecord> out = new ArrayList<>();
                    for (int w = 0; w < holder.length; w++) {
                        boolean held = holder[w] >= 0 && leaseUntil[w] >= now;
                        out.add(new WorkerRecord(0, w, hwm[w], held ? "node#" + holder[w] : "",
                                held ? leaseUntil[w] : 0, held ? maxAhead[w] : 0));
                    }
                    return out;
                });
            }

            @Override
            public OptionalLong storeTimeMillis() throws RegistryException {
                return call(n, () -> "time", OptionalLong::of);
            }

            @Override
            public void close() {
            }
        };
    }

    private <T> T call(Simulation.Node n, Supplier<String> op, Op<T> apply)
            throws RegistryException {
        String what = sim.tracing() ? op.get() : "";
        long now = sim.now();
        if (now < failoverUntil) {
            sim.count(Simulation.Event.FAILOVER_REFUSED);
            note(n, what, "failover, not applied");
            throw unavailable("store failing over (simulated)");
        }
        Fault f = sim.storeFault();
        if (f == Fault.LOST) {
            sim.count(Simulation.Event.REQUEST_LOST);
            note(n, what, "request lost");
            throw unavailable("request lost (simulated)");
        }
        T result;
        try {
            result = apply.apply(now);
        } catch (RegistryException e) {
            note(n, what, e.kind().toString());
            answer(n, what, f);
            throw e;
        }
        note(n, what, "applied");
        answer(n, what, f);
        return result;
    }

    /** Delivers the answer of an applied call, late or not at all as {@code f} says. */
    private void answer(Simulation.Node n, String what, Fault f) throws RegistryException {
        if (f == Fault.ACK_LOST) {
            sim.count(Simulation.Event.ANSWER_LOST);
            note(n, what, "answer lost");
            throw unavailable("answer lost (simulated)");
        }
        if (f == Fault.DELAYED) {
            long delay = sim.ackDelay();
            if (delay >= sim.storeTimeoutMillis()) {
                sim.advanceTo(sim.now() + sim.storeTimeoutMillis());
                sim.count(Simulation.Event.TIMEOUT);
                note(n, what, "timed out");
                throw unavailable("timed out (simulated)");
            }
            sim.advanceTo(sim.now() + delay);
            sim.count(Simulation.Event.ANSWER_LATE);
            note(n, what, "answered " + delay + " ms late");
        }
    }

    private void note(Simulation.Node n, String what, String event) {
        if (sim.tracing()) {
            sim.trace(n.machine, "node#" + n.id + " " + what + ": " + event);
        }
    }

    private Claim doClaim(Simulation.Node n, ClaimRequest r, long now) throws RegistryException {
        int best = -1;
        for (int w = 0; w < holder.length; w++) {
            if (holder[w] >= 0 && leaseUntil[w] >= now) {
                continue;
            }
            if (w == r.preferredWorkerId()) {
                best = w;
                break;
            }
            if (best < 0 || hwm[w] < hwm[best]) {
                best = w;
            }
        }
        if (best < 0) {
            throw new RegistryException(Kind.POOL_FULL, "all " + holder.length
                    + " worker IDs are held");
        }
        if (lastHolder[best] >= 0 && lastHolder[best] != n.id) {
            sim.count(Simulation.Event.TAKEOVER);
        }
        holder[best] = n.id;
        lastHolder[best] = n.id;
        token[best] = nextToken++;
        leaseUntil[best] = now + r.leaseTtlMillis();
        maxAhead[best] = r.maxAheadMillis();
        return new Claim(r.namespace(), r.datacenterId(), best, token[best], hwm[best],
                r.leaseTtlMillis());
    }

    private long doExtend(Claim claim, long until, long now) throws RegistryException {
        int w = owned(claim, now);
        hwm[w] = Math.max(hwm[w], until);
        token[w] = nextToken++;
        leaseUntil[w] = now + claim.leaseTtlMillis();
        return token[w];
    }

    private int owned(Claim claim, long now) throws RegistryException {
        int w = claim.workerId();
        if (token[w] != claim.token() || revokeExpired && leaseUntil[w] < now) {
            sim.count(Simulation.Event.LEASE_LOST);
            throw new RegistryException(Kind.LEASE_LOST, "worker " + w + " fencing token changed");
        }
        return w;
    }

    private static RegistryException unavailable(String why) {
        return new RegistryException(Kind.UNAVAILABLE, why);
    }
}

package io.idmint.testkit;

import io.idmint.TimeSource;
import io.idmint.spi.Claim;
import io.idmint.spi.ClaimRequest;
import io.idmint.spi.RegistryException;
import io.idmint.spi.RegistryException.Kind;
import io.idmint.spi.WorkerRecord;
import io.idmint.spi.WorkerRegistry;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A registry in memory, for unit tests: leases expire on the given time source's monotonic
 * clock, and {@link #setAvailable(boolean)} simulates a store outage. Several generators sharing
 * one instance behave like nodes sharing a store.
 */
public final class InMemoryRegistry implements WorkerRegistry {

    private static final class Entry {
        String layout;
        long hwm;
        long token;
        long leaseUntilNanos = Long.MIN_VALUE;
        String holder = "";
        long maxAhead;
    }

    private final TimeSource time;
    private final Map<String, Entry> entries = new HashMap<>();
    private final Map<String, String> layouts = new HashMap<>();
    private final Map<String, String> datacenterNames = new HashMap<>();
    private long nextToken = 1;
    private boolean available = true;

    public InMemoryRegistry(TimeSource time) {
        this.time = time;
    }

    /** Makes every call fail with {@link Kind#UNAVAILABLE} while false. */
    public synchronized void setAvailable(boolean available) {
        this.available = available;
    }

    /** The stored HWM of a worker, for assertions. */
    public synchronized long hwm(String namespace, int datacenterId, int workerId) {
        Entry e = entries.get(key(namespace, datacenterId, workerId));
        return e == null ? 0 : e.hwm;
    }

    @Override
    public synchronized Claim claim(ClaimRequest request) throws RegistryException {
        checkAvailable();
        String stored = layouts.putIfAbsent(request.namespace(), request.layoutSpec());
        if (stored != null && !stored.equals(request.layoutSpec())) {
            throw new RegistryException(Kind.CONFLICT, "namespace " + request.namespace()
                    + " uses layout '" + stored + "', not '" + request.layoutSpec() + "'");
        }
        if (!request.datacenterName().isEmpty()) {
            String dcKey = request.namespace() + "/" + request.datacenterId();
            String name = datacenterNames.putIfAbsent(dcKey, request.datacenterName());
            if (name != null && !name.equals(request.datacenterName())) {
                throw new RegistryException(Kind.CONFLICT, "datacenter " + request.datacenterId()
                        + " is '" + name + "' in namespace " + request.namespace() + ", not '"
                        + request.datacenterName() + "'");
            }
        }
        long now = time.nanoTime();
        long nowMillis = time.currentTimeMillis();
        // The preferred worker when free, else the lowest free one not ahead of the clock, else
        // the coldest (WorkerRegistry.claim).
        int best = -1;
        boolean settled = false;
        for (int w = 0; w <= request.maxWorkerId(); w++) {
            Entry e = entries.get(key(request.namespace(), request.datacenterId(), w));
            boolean free = e == null || e.leaseUntilNanos < now;
            if (!free) {
                continue;
            }
            if (w == request.preferredWorkerId()) {
                best = w;
                break;
            }
            if (!settled && (hwmOf(request, w) <= nowMillis || best < 0
                    || hwmOf(request, w) < hwmOf(request, best))) {
                best = w;
                settled = hwmOf(request, w) <= nowMillis;
            }
        }
        if (best < 0) {
            throw new RegistryException(Kind.POOL_FULL, "all " + (request.maxWorkerId() + 1)
                    + " worker IDs are held");
        }
        Entry e = entries.computeIfAbsent(key(request.namespace(), request.datacenterId(), best),
                k -> new Entry());
        e.layout = request.layoutSpec();
        e.holder = request.holder();
        e.maxAhead = request.maxAheadMillis();
        e.token = nextToken++;
        e.leaseUntilNanos = saturatedAdd(now, nanos(request.leaseTtlMillis()));
        return new Claim(request.namespace(), request.datacenterId(), best, e.token, e.hwm,
                request.leaseTtlMillis());
    }

    @Override
    public synchronized long extend(Claim claim, long untilMillis) throws RegistryException {
        checkAvailable();
        Entry e = owned(claim);
        e.hwm = Math.max(e.hwm, untilMillis);
        e.token = nextToken++;
        e.leaseUntilNanos = saturatedAdd(time.nanoTime(), nanos(claim.leaseTtlMillis()));
        return e.token;
    }

    @Override
    public synchronized void release(Claim claim, long finalHwmMillis) throws RegistryException {
        checkAvailable();
        Entry e = owned(claim);
        e.hwm = Math.max(finalHwmMillis, claim.hwmMillis());
        e.token = nextToken++;
        e.leaseUntilNanos = Long.MIN_VALUE;
    }

    @Override
    public synchronized List<WorkerRecord> list(String namespace) throws RegistryException {
        checkAvailable();
        long now = time.nanoTime();
        List<WorkerRecord> out = new ArrayList<>();
        entries.forEach((k, e) -> {
            String[] parts = k.split("/");
            if (parts[0].equals(namespace)) {
                boolean held = e.leaseUntilNanos >= now;
                long expires = !held ? 0 : e.leaseUntilNanos == Long.MAX_VALUE ? Long.MAX_VALUE
                        : time.currentTimeMillis() + (e.leaseUntilNanos - now) / 1_000_000;
                out.add(new WorkerRecord(Integer.parseInt(parts[1]), Integer.parseInt(parts[2]),
                        e.hwm, held ? e.holder : "", expires, held ? e.maxAhead : 0));
            }
        });
        out.sort(Comparator.comparingInt(WorkerRecord::datacenterId)
                .thenComparingInt(WorkerRecord::workerId));
        return out;
    }

    @Override
    public void close() {
    }

    private Entry owned(Claim claim) throws RegistryException {
        Entry e = entries.get(key(claim.namespace(), claim.datacenterId(), claim.workerId()));
        if (e == null || e.token != claim.token()) {
            throw new RegistryException(Kind.LEASE_LOST, "worker " + claim.workerId()
                    + " fencing token changed");
        }
        return e;
    }

    private long hwmOf(ClaimRequest r, int w) {
        Entry e = entries.get(key(r.namespace(), r.datacenterId(), w));
        return e == null ? 0 : e.hwm;
    }

    private void checkAvailable() throws RegistryException {
        if (!available) {
            throw new RegistryException(Kind.UNAVAILABLE, "in-memory store is down (simulated)");
        }
    }

    private static long nanos(long millis) {
        return millis > Long.MAX_VALUE / 1_000_000L ? Long.MAX_VALUE : millis * 1_000_000L;
    }

    private static long saturatedAdd(long a, long b) {
        long r = a + b;
        return ((a ^ r) & (b ^ r)) < 0 ? Long.MAX_VALUE : r;
    }

    private static String key(String ns, int dc, int w) {
        return ns + "/" + dc + "/" + w;
    }
}

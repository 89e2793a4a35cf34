package io.idmint.etcd;

import static io.idmint.etcd.EtcdStore.bytes;
import static io.idmint.etcd.EtcdStore.first;
import static io.idmint.etcd.EtcdStore.string;
import static io.idmint.etcd.FencedWrites.describe;
import static io.idmint.etcd.FencedWrites.ownedBy;
import static io.idmint.etcd.FencedWrites.owner;

import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import io.idmint.spi.Claim;
import io.idmint.spi.ClaimRequest;
import io.idmint.spi.RegistryException;
import io.idmint.spi.RegistryException.Kind;
import io.idmint.spi.WorkerRecord;
import io.idmint.spi.WorkerRegistry;
import io.idmint.spi.support.HolderText;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * A {@link WorkerRegistry} on etcd. Each step is one {@code Txn} (key layout in
 * {@link io.idmint.etcd}):
 *
 * <ul>
 *   <li>claim: if the owner key is absent and the HWM key is unchanged since it was read, rewrite
 *       the HWM with the value read and create the owner key on a fresh lease. The HWM key's new
 *       {@code mod_revision} is the fencing token; the owner key shares it as its
 *       {@code create_revision}.
 *   <li>extend: renew the lease, then if the HWM key's {@code mod_revision} is the token and the
 *       owner key is still the one this claim created, write {@code max(HWM, until)}.
 *   <li>release: under the same condition, write the final HWM and delete the owner key, then
 *       revoke the lease.
 * </ul>
 *
 * A release whose outcome is unknown (etcd did not answer) leaves the owner key on a lease that
 * etcd keeps until its TTL, and restores with a fresh TTL when it restarts after an outage. This
 * client remembers such an <em>abandoned</em> claim, and a later claim through it may take that
 * worker again at once: its {@code Txn} compares the owner key's {@code mod_revision} with the
 * abandoned key's instead of requiring the key absent, and moves the key to the new lease. The
 * abandoned claim issues nothing (its caller gave it up before releasing), nobody else could claim
 * the worker while the key stood, and the HWM comparison is the same as for a free worker, so the
 * new claim starts above every reservation as any claim does (docs/registries.md, "etcd: the
 * worker after a whole-store outage").
 *
 *
 * A node whose lease expired while another node claimed the worker fails both comparisons, so it
 * can never lower or overwrite the HWM the new holder started above.
 */
final class EtcdRegistry implements WorkerRegistry {

    /** Lost claim races in a row before giving up with UNAVAILABLE; each loss is another's win. */
    private static final int MAX_CLAIM_ATTEMPTS = 64;

    /** Writes of one extend that may commit unacknowledged and be written again on top. */
    private static final int MAX_RECOVERIES = 3;

    private final EtcdStore store;
    private final EtcdKeys keys;
    private final Clock clock;
    private final Map<String, Held> held = new ConcurrentHashMap<>();
    /** Claims given up while etcd did not answer, whose owner keys may stand: by owner key. */
    private final Map<String, Held> abandoned = new ConcurrentHashMap<>();
    private final FencedWrites writes;

    EtcdRegistry(EtcdStore store, String prefix, Clock clock) {
        this.store = store;
        this.keys = new EtcdKeys(prefix);
        this.clock = clock;
        this.writes = new FencedWrites(store, keys, held);
    }

    @Override
    public Claim claim(ClaimRequest r) throws RegistryException {
        String ns = r.namespace();
        writeOnce(keys.layout(ns), r.layoutSpec(), stored -> "namespace " + ns
                + " uses layout '" + stored + "', not '" + r.layoutSpec() + "'");
        if (!r.datacenterName().isEmpty()) {
            writeOnce(keys.name(ns, r.datacenterId()), r.datacenterName(), stored ->
                    "datacenter " + r.datacenterId() + " is '" + stored + "' in namespace " + ns
                    + ", not '" + r.datacenterName() + "'");
        }
        long lease = 0;
        long ttlSeconds = 0;
        boolean won = false;
        try {
            for (int attempt = 1; ; attempt++) {
                String base = keys.datacenter(ns, r.datacenterId());
                WorkerPool pool = new WorkerPool(base, store.getPrefix(base).getKvs(),
                        this::abandonedHere);
                abandoned.keySet().removeIf(k -> k.startsWith(base) && !pool.retakes(k));
                int w = pool.choose(r.maxWorkerId(), r.preferredWorkerId(), clock.millis());
                if (w < 0) {
                    throw new RegistryException(Kind.POOL_FULL, "all " + (r.maxWorkerId() + 1)
                            + " worker IDs of datacenter " + r.datacenterId() + " in namespace "
                            + ns + " are held (etcd prefix " + keys.prefix() + ")");
                }
                if (lease == 0) {
                    long[] granted = store.grant(Math.max(1, (r.leaseTtlMillis() + 999) / 1000));
                    lease = granted[0];
                    ttlSeconds = granted[1];
                }
                KeyValue stored = pool.hwmKey(w);
                long hwm = pool.hwm(w);
                String hwmKey = keys.hwm(ns, r.datacenterId(), w);
                String ownerKey = keys.owner(ns, r.datacenterId(), w);
                KeyValue left = pool.abandonedOwner(w);
                Cmp hwmUnchanged = stored == null
                        ? new Cmp(bytes(hwmKey), Cmp.Op.EQUAL, CmpTarget.createRevision(0))
                        : new Cmp(bytes(hwmKey), Cmp.Op.EQUAL,
                                CmpTarget.modRevision(stored.getModRevision()));
                // Sent again when an attempt's outcome is unknown: if that attempt committed,
                // the owner key is on this claim's lease, and the claim is won with it.
                TxnResponse t = store.txn("claim of worker " + w, new Cmp[] {
                    left == null
                            ? new Cmp(bytes(ownerKey), Cmp.Op.EQUAL, CmpTarget.createRevision(0))
                            : new Cmp(bytes(ownerKey), Cmp.Op.EQUAL,
                                    CmpTarget.modRevision(left.getModRevision())),
                    hwmUnchanged,
                }, new Op[] {
                    // Rewriting the same HWM moves its mod_revision: the claim fences every
                    // earlier holder of this worker.
                    Op.put(bytes(hwmKey), bytes(Long.toString(hwm)), PutOption.DEFAULT),
                    Op.put(bytes(ownerKey), bytes(HolderText.of(r.holder(), r.maxAheadMillis())),
                            PutOption.builder().withLeaseId(lease).build()),
                }, new Op[] {Op.get(bytes(ownerKey), GetOption.DEFAULT),
                    Op.get(bytes(hwmKey), GetOption.DEFAULT)}, EtcdStore.RESEND);
                KeyValue owner = t.isSucceeded() ? null : first(t, 0);
                if (t.isSucceeded() || owner != null && owner.getLease() == lease) {
                    // Taking an abandoned key over keeps its create_revision; the token is
                    // the HWM key's mod_revision either way.
                    long token = t.isSucceeded() ? t.getHeader().getRevision()
                            : first(t, 1).getModRevision();
                    long ownerRevision = owner != null ? owner.getCreateRevision()
                            : left != null ? left.getCreateRevision() : token;
                    held.put(hwmKey, new Held(lease, ownerRevision, token, hwm, 0));
                    won = true;
                    if (left != null && abandoned.remove(ownerKey) != null) {
                        store.revokeQuietly(left.getLease()); // holds nothing any more
                    }
                    return new Claim(ns, r.datacenterId(), w, token, hwm, ttlSeconds * 1000);
                }
                if (attempt == MAX_CLAIM_ATTEMPTS) {
                    throw new RegistryException(Kind.UNAVAILABLE, "lost " + attempt + " claim "
                            + "races in a row in namespace " + ns + "; retry later");
                }
            }
        } finally {
            if (!won && lease != 0) {
                // Also when the claim Txn timed out: had it committed, this frees the worker.
                store.revokeQuietly(lease);
            }
        }
    }

    @Override
    public long extend(Claim c, long untilMillis) throws RegistryException {
        String key = keys.hwm(c);
        Held h = held(c);
        long current = h.token() == c.token() ? h.hwm() : hwmAt(c);
        if (!store.keepAliveOnce(h.lease())) {
            if (ownerKeyStands(c, h)) {
                throw new RegistryException(Kind.UNAVAILABLE, "etcd answered that lease "
                        + Long.toHexString(h.lease()) + " is gone, but the owner key it holds "
                        + "stands (a member behind a leader change?)");
            }
            held.remove(key, h);
            throw lost(c, "its etcd lease " + Long.toHexString(h.lease()) + " expired");
        }
        long next = Math.max(current, untilMillis);
        Claim at = c;
        TxnResponse t = writes.write(at, h, next, false);
        for (int recovered = 0; !t.isSucceeded(); recovered++) {
            KeyValue now = writes.recoverable(at, h, t);
            if (now == null) {
                throw lost(c, describe(t));
            }
            if (recovered == MAX_RECOVERIES) {
                throw new RegistryException(Kind.UNAVAILABLE, "extend of worker " + c.workerId()
                        + ": " + recovered + " writes in a row committed unacknowledged");
            }
            // An earlier write with this token timed out but did commit (in an earlier extend,
            // or an attempt of this one): only this claim has written the HWM since, so write
            // again on top of it, never lower.
            at = c.withToken(now.getModRevision());
            next = Math.max(EtcdKeys.hwmValue(now), untilMillis);
            t = writes.write(at, h, next, false);
        }
        long token = t.getHeader().getRevision();
        held.put(key, h.written(token, next));
        return token;
    }

    @Override
    public void release(Claim c, long finalHwmMillis) throws RegistryException {
        Held h = held(c);
        long value = Math.max(finalHwmMillis, c.hwmMillis());
        try {
            TxnResponse t = writes.write(c, h, value, true);
            if (!t.isSucceeded()) {
                KeyValue now = writes.recoverable(c, h, t);
                if (now == null) {
                    if (h.ours() && !ownedBy(h, owner(t))) {
                        store.revokeQuietly(h.lease()); // holds nothing any more
                    }
                    throw lost(c, describe(t));
                }
                // The final HWM may be below a reservation that timed out yet committed: the
                // node issued nothing above its acknowledged limit, so the lower value is safe.
                t = writes.write(c.withToken(now.getModRevision()), h, value, true);
                if (!t.isSucceeded()) {
                    throw lost(c, describe(t));
                }
            }
        } catch (RegistryException e) {
            if (e.kind() == Kind.UNAVAILABLE && h.ours()) {
                // Outcome unknown. Dropping the lease frees the worker either way; the HWM is
                // then the final one or the last reservation, both at least every issued time.
                // When etcd is down the revoke fails too: the key may stand until the TTL,
                // and a claim of this client may take it over (see the class comment).
                abandoned.put(keys.owner(c), h);
                store.revokeQuietly(h.lease());
            }
            throw e;
        } finally {
            held.computeIfPresent(keys.hwm(c), (k, cur) ->
                    cur.sameClaim(h) ? null : cur);
        }
        // The owner key is gone; the lease holds nothing now.
        store.revokeQuietly(h.lease());
    }

    @Override
    public List<WorkerRecord> list(String namespace) throws RegistryException {
        return list(namespace, true);
    }

    /** Without the lease TTLs, one read: the fleet clock check's, every few seconds a node. */
    @Override
    public List<WorkerRecord> heldWorkers(String namespace) throws RegistryException {
        return list(namespace, false).stream().filter(WorkerRecord::held).toList();
    }

    /**
     * One prefix read of the namespace's HWM and owner keys; with {@code expiry}, the holders'
     * lease TTLs too (one request per lease, sent at once).
     */
    private List<WorkerRecord> list(String namespace, boolean expiry) throws RegistryException {
        String dcs = keys.datacenters(namespace);
        Map<Long, long[]> hwmAndLease = new TreeMap<>();
        Map<Long, String> holders = new TreeMap<>();
        Map<Long, Long> ahead = new TreeMap<>();
        for (KeyValue kv : store.getPrefix(dcs).getKvs()) {
            String[] p = string(kv.getKey()).substring(dcs.length()).split("/", -1);
            if (p.length != 3 || !(p[1].equals("hwm") || p[1].equals("owner"))) {
                continue;
            }
            long id = ((long) EtcdKeys.number(p[0], kv) << 32) | EtcdKeys.number(p[2], kv);
            long[] v = hwmAndLease.computeIfAbsent(id, k -> new long[2]);
            if (p[1].equals("hwm")) {
                v[0] = EtcdKeys.hwmValue(kv);
            } else {
                v[1] = kv.getLease();
                String text = string(kv.getValue());
                String holder = HolderText.name(text);
                holders.put(id, holder.isEmpty() ? "(unnamed)" : holder);
                ahead.put(id, HolderText.maxAheadMillis(text));
            }
        }
        long[] ttls = expiry ? store.timeToLive(hwmAndLease.entrySet().stream()
                .filter(e -> holders.containsKey(e.getKey())).mapToLong(e -> e.getValue()[1])
                .toArray()) : null;
        long now = clock.millis();
        List<WorkerRecord> out = new ArrayList<>();
        int held = 0;
        for (Map.Entry<Long, long[]> e : hwmAndLease.entrySet()) {
            int dc = (int) (e.getKey() >>> 32);
            int w = (int) (long) e.getKey();
            String holder = holders.getOrDefault(e.getKey(), "");
            long expires = holder.isEmpty() || !expiry ? 0
                    : now + Math.max(0, ttls[held++]) * 1000;
            out.add(new WorkerRecord(dc, w, e.getValue()[0], holder, expires,
                    ahead.getOrDefault(e.getKey(), 0L)));
        }
        out.sort(Comparator.comparingInt(WorkerRecord::datacenterId)
                .thenComparingInt(WorkerRecord::workerId));
        return out;
    }

    @Override
    public void close() {
        // Leases are not revoked: an unreleased claim lapses with its TTL, as after a crash.
        store.close();
    }

    /** Writes a value once, or checks that the stored one is equal. */
    private void writeOnce(String key, String value, Function<String, String> conflict)
            throws RegistryException {
        for (int attempt = 0; attempt < 3; attempt++) {
            TxnResponse t = store.txn("write-once " + key,
                    new Cmp[] {new Cmp(bytes(key), Cmp.Op.EQUAL, CmpTarget.createRevision(0))},
                    new Op[] {Op.put(bytes(key), bytes(value), PutOption.DEFAULT)},
                    new Op[] {Op.get(bytes(key), GetOption.DEFAULT)}, EtcdStore.RESEND);
            if (t.isSucceeded()) {
                return;
            }
            List<KeyValue> kvs = t.getGetResponses().get(0).getKvs();
            if (!kvs.isEmpty()) {
                String stored = string(kvs.get(0).getValue());
                if (!stored.equals(value)) {
                    throw new RegistryException(Kind.CONFLICT, conflict.apply(stored)
                            + " (etcd key " + key + ")");
                }
                return;
            }
        }
        throw new RegistryException(Kind.UNAVAILABLE, "etcd key " + key + " keeps vanishing");
    }

    /** Whether {@code owner} is the key of a claim this client abandoned, as it left it. */
    private boolean abandonedHere(KeyValue owner) {
        Held h = abandoned.get(string(owner.getKey()));
        return h != null && h.lease() == owner.getLease()
                && h.ownerRevision() == owner.getCreateRevision();
    }

    /** What this client knows of the claim, or the owner key as stored. */
    private Held held(Claim c) throws RegistryException {
        Held h = held.get(keys.hwm(c));
        if (h != null) {
            return h;
        }
        List<KeyValue> kvs = store.get(keys.owner(c)).getKvs();
        if (kvs.isEmpty()) {
            throw lost(c, "nobody holds it");
        }
        return new Held(kvs.get(0).getLease(), kvs.get(0).getCreateRevision(), 0, 0, 0);
    }

    /**
     * Whether the owner key is still the one this claim created, read linearizably (through the
     * current leader's quorum). A member that answered "lease not found" may be an old leader
     * resumed from a pause that has not yet heard of the new term; when the key stands, the
     * lease is not known to be gone and the renewal counts as unanswered (the Txn's comparison
     * of this key, not the lease, is what fences the HWM).
     */
    private boolean ownerKeyStands(Claim c, Held h) throws RegistryException {
        List<KeyValue> kvs = store.get(keys.owner(c)).getKvs();
        return !kvs.isEmpty() && kvs.get(0).getCreateRevision() == h.ownerRevision()
                && kvs.get(0).getLease() == h.lease();
    }

    /** The HWM written with the claim's token, which must still be the current one. */
    private long hwmAt(Claim c) throws RegistryException {
        List<KeyValue> kvs = store.get(keys.hwm(c)).getKvs();
        if (kvs.isEmpty() || kvs.get(0).getModRevision() != c.token()) {
            throw lost(c, "its fencing token changed");
        }
        return EtcdKeys.hwmValue(kvs.get(0));
    }

    private RegistryException lost(Claim c, String why) {
        return new RegistryException(Kind.LEASE_LOST, "worker " + c.workerId() + " of datacenter "
                + c.datacenterId() + " in namespace " + c.namespace() + " was lost: " + why);
    }
}

package io.idmint.zookeeper;

import io.idmint.spi.Claim;
import io.idmint.spi.ClaimRequest;
import io.idmint.spi.RegistryException;
import io.idmint.spi.RegistryException.Kind;
import io.idmint.spi.WorkerRecord;
import io.idmint.spi.WorkerRegistry;
import io.idmint.zookeeper.ZkNodes.Owner;
import io.idmint.zookeeper.ZkSession.Node;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.transaction.CuratorOp;
import org.apache.curator.framework.api.transaction.CuratorTransactionResult;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.KeeperException.Code;

/**
 * Worker IDs leased from ZooKeeper (layout in {@link ZkNodes}). The fencing token is the
 * {@code Stat.version} of the worker's persistent HWM znode: every step is one {@code multi()}
 * whose {@code setData} is conditional on it, and a claim rewrites the HWM (same value) so that
 * it moves the version and fences every earlier holder. The ephemeral owner znode only says
 * whether the worker is taken; its version is 0 after every re-creation, so it is no fence.
 *
 * <p>The store must promise what ZooKeeper promises: writes are linearizable (acknowledged by a
 * quorum, applied in one order) and conditional on the version atomically, with all the
 * operations of a {@code multi()} applied together or not at all.
 *
 * <p>Answers that were lost (connection dropped mid-call) are reconciled, never retried blindly:
 * an owner znode that a claim or release may have left behind is deleted by the next claim
 * ({@link #orphans}), and a holder whose own extend landed unacknowledged may go on from the
 * version it moved to, but only while its owner znode still carries its claim's nonce
 * ({@link #unacked}).
 */
final class ZkRegistry implements WorkerRegistry {

    /** Passes over the pool when every attempt lost a race to another claimer. */
    private static final int MAX_PASSES = 3;

    /** A claim this registry made: its owner znode's nonce and the session that created it. */
    private record Held(String nonce, long sessionId) {
    }

    private final ZkSession zk;
    private final ZkNodes nodes;
    private final ZkPool pool;
    /** Leaf's worker registrations when {@code leaf-name} is set, else null. */
    private final LeafWorkers leaf;
    /** Owner znode path → this registry's latest claim of that worker. */
    private final Map<String, Held> held = new ConcurrentHashMap<>();
    /** Owner znode path → nonce of an owner znode this registry may have left behind. */
    private final Map<String, String> orphans = new ConcurrentHashMap<>();
    /** HWM znode path → the token its holder still has while a write of it had a lost answer. */
    private final Map<String, Long> unacked = new ConcurrentHashMap<>();

    /** With {@code leaf-name}, {@code dataDir} keeps this node's ID ({@link LeafWorkers}). */
    ZkRegistry(ZkUri uri, Path dataDir) {
        this.zk = new ZkSession(uri);
        this.nodes = new ZkNodes(uri.chroot());
        this.pool = new ZkPool(zk, nodes);
        this.leaf = uri.leafName() == null ? null
                : new LeafWorkers(zk, nodes, uri, dataDir.resolve(LeafWorkers.NODE_ID_FILE));
    }

    ZkSession session() {
        return zk;
    }

    @Override
    public Claim claim(ClaimRequest req) throws RegistryException {
        String ns = req.namespace();
        int dc = req.datacenterId();
        nodes.namespace(ns);
        if (leaf != null) {
            LeafWorkers.check(req, leaf.leafName());
        }
        CuratorFramework c = zk.ready(req.leaseTtlMillis());
        sweepOrphans(c);
        zk.createOrCompare(c, nodes.layout(ns), req.layoutSpec(), stored -> "namespace " + ns
                + " uses layout '" + stored + "', not '" + req.layoutSpec() + "'");
        if (!req.datacenterName().isEmpty()) {
            zk.createOrCompare(c, nodes.name(ns, dc), req.datacenterName(), stored -> "datacenter "
                    + dc + " is '" + stored + "' in namespace " + ns + ", not '"
                    + req.datacenterName() + "'");
        }
        zk.ensure(c, nodes.hwms(ns, dc));
        zk.ensure(c, nodes.owners(ns, dc));
        for (int pass = 1;; pass++) {
            Set<Integer> owned = pool.workerIds(c, nodes.owners(ns, dc), req.maxWorkerId());
            Set<Integer> stored = pool.workerIds(c, nodes.hwms(ns, dc), req.maxWorkerId());
            LeafWorkers.Registrations lr = leaf == null ? null : leaf.read(c);
            ZkPool.Choices order = lr == null
                    ? pool.choices(c, req, owned, stored, System.currentTimeMillis())
                    : new ZkPool.Choices(leaf.choices(c, req, lr, owned, stored), List.of());
            long floor = lr == null ? 0 : lr.floorMillis();
            boolean raced = false;
            for (int w : order.first()) {
                Node n = stored.contains(w) ? zk.readOrNull(c, nodes.hwm(ns, dc, w)) : null;
                Claim got = n != null ? takeStored(c, req, w, n, floor)
                        : takeFresh(c, req, w, floor);
                if (got != null) {
                    return got;
                }
                raced = true;
            }
            for (ZkPool.Stored x : order.rest()) {
                Claim got = takeStored(c, req, x.worker(), x.node(), 0);
                if (got != null) {
                    return got;
                }
                raced = true;
            }
            if (!raced) {
                throw new RegistryException(Kind.POOL_FULL, "all " + (req.maxWorkerId() + 1)
                        + " worker IDs of datacenter " + dc + " in namespace " + ns
                        + " are held");
            }
            if (pass == MAX_PASSES) {
                throw new RegistryException(Kind.UNAVAILABLE, "other nodes took every free worker "
                        + "ID of datacenter " + dc + " first, " + MAX_PASSES + " times; retry");
            }
        }
    }

    /**
     * Claims a worker whose HWM znode exists: rewrites the HWM if its version is the one read.
     * The claim starts above {@code floorMillis} too (Leaf's last reported time, or 0).
     */
    private Claim takeStored(CuratorFramework c, ClaimRequest req, int w, Node n,
            long floorMillis) throws RegistryException {
        String hwm = nodes.hwm(req.namespace(), req.datacenterId(), w);
        long hwmMillis = Math.max(floorMillis, ZkNodes.decodeHwm(hwm, n.data()));
        String nonce = UUID.randomUUID().toString();
        return commitClaim(c, req, w, hwmMillis, nonce, () -> List.of(
                ownerOp(c, req, w, nonce),
                c.transactionOp().setData().withVersion(n.stat().getVersion())
                        .forPath(hwm, n.data())));
    }

    /** Claims a never-used worker: create its HWM znode (0), then write it like any claim. */
    private Claim takeFresh(CuratorFramework c, ClaimRequest req, int w, long floorMillis)
            throws RegistryException {
        String hwm = nodes.hwm(req.namespace(), req.datacenterId(), w);
        byte[] zero = ZkNodes.encodeHwm(0);
        String nonce = UUID.randomUUID().toString();
        return commitClaim(c, req, w, floorMillis, nonce, () -> List.of(
                c.transactionOp().create().withMode(CreateMode.PERSISTENT).forPath(hwm, zero),
                ownerOp(c, req, w, nonce),
                c.transactionOp().setData().withVersion(0).forPath(hwm, zero)));
    }

    private CuratorOp ownerOp(CuratorFramework c, ClaimRequest req, int w, String nonce)
            throws Exception {
        Owner o = new Owner(nonce, zk.sessionTimeoutMillis(c), req.holder());
        return c.transactionOp().create().withMode(CreateMode.EPHEMERAL)
                .forPath(nodes.owner(req.namespace(), req.datacenterId(), w), o.encode());
    }

    private interface Ops {
        List<CuratorOp> get() throws Exception;
    }

    /** Runs a claim's multi(); null when another claimer got there first. */
    private Claim commitClaim(CuratorFramework c, ClaimRequest req, int w, long hwmMillis,
            String nonce, Ops ops) throws RegistryException {
        String owner = nodes.owner(req.namespace(), req.datacenterId(), w);
        long session = zk.sessionId(c);
        try {
            List<CuratorTransactionResult> rs = c.transaction().forOperations(ops.get());
            long token = rs.get(rs.size() - 1).getResultStat().getVersion();
            held.put(owner, new Held(nonce, session));
            unacked.remove(nodes.hwm(req.namespace(), req.datacenterId(), w));
            return new Claim(req.namespace(), req.datacenterId(), w, token, hwmMillis,
                    req.leaseTtlMillis());
        } catch (Exception e) {
            if (ZkSession.outcomeUnknown(e)) {
                // The owner znode may exist in this session with nobody using it.
                orphans.put(owner, nonce);
            } else {
                Code code = ((KeeperException) e).code();
                if (code == Code.NODEEXISTS || code == Code.BADVERSION || code == Code.NONODE) {
                    return null;
                }
            }
            throw zk.unavailable("claiming worker " + w, e);
        }
    }

    @Override
    public long extend(Claim claim, long untilMillis) throws RegistryException {
        CuratorFramework c = zk.ready(claim.leaseTtlMillis());
        String hwm = nodes.hwm(claim);
        String owner = nodes.owner(claim);
        Held h = held.get(owner);
        requireClaimingSession(c, claim, owner, h);
        Node n = readHwm(c, claim);
        int version = baseVersion(c, claim, n);
        byte[] next = ZkNodes.encodeHwm(Math.max(ZkNodes.decodeHwm(hwm, n.data()), untilMillis));
        try {
            List<CuratorTransactionResult> rs = c.transaction().forOperations(
                    c.transactionOp().check().forPath(owner),
                    c.transactionOp().setData().withVersion(version).forPath(hwm, next));
            unacked.remove(hwm);
            // Curator may have swapped in a new session between the check above and the write; the
            // write only raised the HWM, which is harmless, but the claim is gone.
            requireClaimingSession(c, claim, owner, h);
            return rs.get(1).getResultStat().getVersion();
        } catch (Exception e) {
            if (ZkSession.outcomeUnknown(e)) {
                answerLost(claim);
            } else if (ZkSession.failedOp(e) == 0) {
                throw new RegistryException(Kind.LEASE_LOST, describe(claim) + ": its ephemeral "
                        + "owner znode is gone (the session that claimed it expired)");
            } else if (((KeeperException) e).code() == Code.BADVERSION) {
                throw fenced(claim, -1);
            }
            throw zk.unavailable("extending " + describe(claim), e);
        }
    }

    /** LEASE_LOST unless the client still runs in the session that made the claim. */
    private void requireClaimingSession(CuratorFramework c, Claim claim, String owner, Held h)
            throws RegistryException {
        if (h != null && h.sessionId() != zk.sessionId(c)) {
            if (held.remove(owner, h)) {
                // If the old session is not yet gone on the server, its owner znode still is ours.
                orphans.put(owner, h.nonce());
            }
            throw new RegistryException(Kind.LEASE_LOST, describe(claim) + ": the ZooKeeper "
                    + "session that claimed it expired, and its ephemeral owner znode with it");
        }
    }

    /**
     * {@inheritDoc}
     *
     * <p>The claim is dead afterwards whatever the outcome: when the store did not answer, the
     * owner znode may outlive the release in this session (the core does not retry one), so the
     * next claim deletes it.
     */
    @Override
    public void release(Claim claim, long finalHwmMillis) throws RegistryException {
        String owner = nodes.owner(claim);
        Held h = held.get(owner);
        try {
            writeFinalHwm(claim, finalHwmMillis);
        } catch (RegistryException e) {
            if (e.kind() == Kind.UNAVAILABLE && h != null) {
                orphans.put(owner, h.nonce());
            }
            throw e;
        }
        if (h != null) {
            held.remove(owner, h);
        }
        unacked.remove(nodes.hwm(claim));
    }

    private void writeFinalHwm(Claim claim, long finalHwmMillis) throws RegistryException {
        String hwm = nodes.hwm(claim);
        String owner = nodes.owner(claim);
        CuratorFramework c = zk.ready(claim.leaseTtlMillis());
        int version = baseVersion(c, claim, readHwm(c, claim));
        byte[] last = ZkNodes.encodeHwm(Math.max(finalHwmMillis, claim.hwmMillis()));
        try {
            try {
                c.transaction().forOperations(
                        c.transactionOp().setData().withVersion(version).forPath(hwm, last),
                        c.transactionOp().delete().forPath(owner));
            } catch (KeeperException e) {
                if (ZkSession.failedOp(e) != 1 || e.code() != Code.NONODE) {
                    throw e;
                }
                // The claiming session expired and took the owner znode; the version is still
                // this holder's, so no one has claimed since: write the final HWM alone.
                c.transaction().forOperations(
                        c.transactionOp().setData().withVersion(version).forPath(hwm, last));
            }
        } catch (Exception e) {
            if (!ZkSession.outcomeUnknown(e) && ((KeeperException) e).code() == Code.BADVERSION) {
                throw fenced(claim, -1);
            }
            throw zk.unavailable("releasing " + describe(claim), e);
        }
    }

    /**
     * Records that a write of this claim's HWM may have landed although its answer was lost, so
     * that the holder, still holding the claim's token, can go on from the version it moved to.
     */
    void answerLost(Claim claim) {
        unacked.putIfAbsent(nodes.hwm(claim), claim.token());
    }

    /**
     * The version to write against: the claim's token, or, after this holder's own writes lost
     * their answers, the version they moved it to.
     *
     * @throws RegistryException LEASE_LOST when anyone else may have written since the token
     */
    private int baseVersion(CuratorFramework c, Claim claim, Node hwmNode)
            throws RegistryException {
        int version = hwmNode.stat().getVersion();
        if (version == claim.token()) {
            return version;
        }
        Long pending = unacked.get(nodes.hwm(claim));
        Held h = held.get(nodes.owner(claim));
        if (pending != null && pending == claim.token() && h != null && version > claim.token()) {
            // Read after the HWM: if the owner znode still carries this claim's nonce, it has
            // existed since the claim, so no one else could claim in between and every version
            // up to the one read came from this holder's writes. A later write fails the
            // multi() below, which is conditional on the version read.
            Node o = zk.readOrNull(c, nodes.owner(claim));
            if (o != null && Owner.decode(nodes.owner(claim), o.data()).nonce().equals(h.nonce())) {
                return version;
            }
        }
        throw fenced(claim, version);
    }

    @Override
    public List<WorkerRecord> list(String namespace) throws RegistryException {
        return pool.list(namespace);
    }

    /** ZooKeeper's clock: the mtime the leader stamps on a write ({@link ZkSession#touch}). */
    @Override
    public OptionalLong storeTimeMillis() throws RegistryException {
        return OptionalLong.of(zk.touch(zk.ready(0), nodes.clock()));
    }

    @Override
    public void close() {
        zk.close();
    }

    @Override
    public String toString() {
        return "ZkRegistry[" + zk + "]";
    }

    /**
     * Deletes owner znodes that this registry created for claims nobody uses. The owner znode is
     * read after the HWM and deleted only if the HWM version is still the one read: an owner
     * znode with our nonce proves that no one claimed in between, and the version check proves
     * that no one claimed since (an owner znode re-created by another claimer looks the same).
     */
    private void sweepOrphans(CuratorFramework c) throws RegistryException {
        for (Map.Entry<String, String> e : orphans.entrySet()) {
            String owner = e.getKey();
            String hwm = ZkNodes.hwmOfOwner(owner);
            Node h = zk.readOrNull(c, hwm);
            Node o = h == null ? null : zk.readOrNull(c, owner);
            if (o != null && Owner.decode(owner, o.data()).nonce().equals(e.getValue())) {
                try {
                    c.transaction().forOperations(
                            c.transactionOp().check().withVersion(h.stat().getVersion())
                                    .forPath(hwm),
                            c.transactionOp().delete().forPath(owner));
                } catch (Exception ex) {
                    if (ZkSession.outcomeUnknown(ex)) {
                        throw zk.unavailable("deleting stale owner znode " + owner, ex);
                    }
                    // gone or claimed meanwhile: nothing of ours left to delete
                }
            }
            orphans.remove(owner, e.getValue());
        }
    }

    private Node readHwm(CuratorFramework c, Claim claim) throws RegistryException {
        Node n = zk.readOrNull(c, nodes.hwm(claim));
        if (n == null) {
            throw new RegistryException(Kind.LEASE_LOST, describe(claim) + ": its HWM znode "
                    + nodes.hwm(claim) + " is gone (HWM znodes must never be deleted)");
        }
        return n;
    }

    private RegistryException fenced(Claim claim, int version) {
        return new RegistryException(Kind.LEASE_LOST, describe(claim) + ": fencing token "
                + claim.token() + " is stale (HWM znode version "
                + (version < 0 ? "moved" : "is " + version) + "): another node claimed it");
    }

    private static String describe(Claim claim) {
        return "worker " + claim.workerId() + " of datacenter " + claim.datacenterId()
                + " in namespace " + claim.namespace();
    }
}

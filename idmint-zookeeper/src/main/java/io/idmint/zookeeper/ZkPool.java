package io.idmint.zookeeper;

import io.idmint.spi.ClaimRequest;
import io.idmint.spi.RegistryException;
import io.idmint.spi.WorkerRecord;
import io.idmint.zookeeper.ZkNodes.Owner;
import io.idmint.zookeeper.ZkSession.Node;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.curator.framework.CuratorFramework;

/**
 * The worker pool as {@link ZkRegistry} reads it, without writing: which worker IDs have an owner
 * or an HWM znode, the order a claim tries free ones in (see {@link #choices}), and the listing
 * for operators.
 */
final class ZkPool {

    /** Never-used worker IDs (HWM 0, the coldest) tried per pass. */
    static final int MAX_FRESH = 8;

    /** A free worker with a stored HWM, as read. */
    record Stored(long hwm, int worker, Node node) {
    }

    private final ZkSession zk;
    private final ZkNodes nodes;

    ZkPool(ZkSession zk, ZkNodes nodes) {
        this.zk = zk;
        this.nodes = nodes;
    }

    /** The order a claim tries free workers in: {@code first} by ID, then {@code rest}. */
    record Choices(List<Integer> first, List<Stored> rest) {
    }

    /**
     * The preferred worker if free; then, by ID, the free ones whose HWM is at most
     * {@code nowMillis}, with up to {@link #MAX_FRESH} + 1 never-used ones (HWM 0) among them;
     * then the rest, coldest (lowest HWM) first. One read of the free workers' HWMs.
     */
    Choices choices(CuratorFramework c, ClaimRequest req, Set<Integer> owned,
            Set<Integer> stored, long nowMillis) throws RegistryException {
        String ns = req.namespace();
        int dc = req.datacenterId();
        int preferred = req.preferredWorkerId();
        List<String> paths = new ArrayList<>();
        for (int w : stored) {
            if (!owned.contains(w) && w != preferred) {
                paths.add(nodes.hwm(ns, dc, w));
            }
        }
        Map<Integer, Stored> free = new TreeMap<>();
        for (Map.Entry<String, Node> e : zk.readAll(c, paths).entrySet()) {
            String path = e.getKey();
            int w = Integer.parseInt(path.substring(path.lastIndexOf('/') + 1));
            free.put(w, new Stored(ZkNodes.decodeHwm(path, e.getValue().data()), w,
                    e.getValue()));
        }
        List<Integer> first = new ArrayList<>();
        if (preferred >= 0 && !owned.contains(preferred)) {
            first.add(preferred);
        }
        int fresh = 0;
        for (int w = 0; w <= req.maxWorkerId() && fresh <= MAX_FRESH; w++) {
            Stored x = free.get(w);
            if (x != null ? x.hwm() <= nowMillis
                    : w != preferred && !owned.contains(w) && !stored.contains(w)) {
                first.add(w);
                fresh += x == null ? 1 : 0;
            }
        }
        List<Stored> rest = new ArrayList<>();
        for (Stored x : free.values()) {
            if (!first.contains(x.worker())) {
                rest.add(x);
            }
        }
        rest.sort(Comparator.comparingLong(Stored::hwm).thenComparingInt(Stored::worker));
        return new Choices(first, rest);
    }

    /** Every worker of the namespace with its HWM and holder, for operators. */
    List<WorkerRecord> list(String namespace) throws RegistryException {
        String dcs = nodes.datacenters(namespace);
        CuratorFramework c = zk.ready(0);
        List<int[]> workers = new ArrayList<>();
        List<String> paths = new ArrayList<>();
        for (String d : zk.childrenOrEmpty(c, dcs)) {
            if (!d.matches("\\d{1,9}")) {
                continue;
            }
            int dc = Integer.parseInt(d);
            Set<Integer> ids = workerIds(c, nodes.hwms(namespace, dc), Integer.MAX_VALUE);
            ids.addAll(workerIds(c, nodes.owners(namespace, dc), Integer.MAX_VALUE));
            for (int w : ids) {
                workers.add(new int[] {dc, w});
                paths.add(nodes.hwm(namespace, dc, w));
                paths.add(nodes.owner(namespace, dc, w));
            }
        }
        Map<String, Node> read = zk.readAll(c, paths);
        Map<Long, WorkerRecord> out = new TreeMap<>();
        for (int[] x : workers) {
            String hwmPath = nodes.hwm(namespace, x[0], x[1]);
            String ownerPath = nodes.owner(namespace, x[0], x[1]);
            Node h = read.get(hwmPath);
            Node o = read.get(ownerPath);
            if (h == null && o == null) {
                continue;
            }
            long hwm = h == null ? 0 : ZkNodes.decodeHwm(hwmPath, h.data());
            String holder = "";
            long expires = 0;
            if (o != null) {
                Owner owner = Owner.decode(ownerPath, o.data());
                holder = owner.holder().isEmpty() ? "unknown" : owner.holder();
                // An estimate: ZooKeeper expires a session that long after the server last heard
                // from its client; the last renewal (HWM write) or the claim stands for that.
                long last = Math.max(o.stat().getCtime(), h == null ? 0 : h.stat().getMtime());
                expires = last + owner.sessionTimeoutMillis();
            }
            out.put(((long) x[0] << 32) | x[1], new WorkerRecord(x[0], x[1], hwm, holder, expires));
        }
        return new ArrayList<>(out.values());
    }

    /** The worker IDs up to {@code maxWorkerId} that have a znode under {@code dir}. */
    Set<Integer> workerIds(CuratorFramework c, String dir, int maxWorkerId)
            throws RegistryException {
        Set<Integer> ids = new HashSet<>();
        for (String name : zk.childrenOrEmpty(c, dir)) {
            if (name.matches("\\d{1,10}")) {
                long w = Long.parseLong(name);
                if (w <= maxWorkerId) {
                    ids.add((int) w);
                }
            }
        }
        return ids;
    }
}

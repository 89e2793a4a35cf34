package io.idmint.zookeeper;

import io.idmint.Layout;
import io.idmint.spi.ClaimRequest;
import io.idmint.spi.RegistryException;
import io.idmint.spi.RegistryException.Kind;
import io.idmint.zookeeper.ZkSession.Node;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.CreateMode;

/**
 * Meituan Leaf's worker registrations, shared with idmint ({@code zk://…?leaf-name=NAME},
 * docs/migration.md). A Leaf node registers once as a persistent sequential znode
 * {@code /snowflake/NAME/forever/IP:PORT-000000000N} whose sequence number N is its worker ID
 * and whose data, {@code {"ip":…,"port":…,"timestamp":…}}, it rewrites every 3 s with its clock.
 *
 * <p>idmint takes worker IDs the same way: it creates its own sequential znode there
 * ({@value #RESERVATION}, data shaped like Leaf's), so ZooKeeper hands it a number that no Leaf
 * node holds and no Leaf node will ever be given (the parent's sequence counter never goes back).
 * A worker ID idmint reserved stays reserved and is claimed again, through idmint's own owner and
 * HWM znodes, on later starts. Every claim starts above the latest time any Leaf node reported.
 */
final class LeafWorkers {

    /** The name of idmint's own registrations: one {@code -}, as Leaf splits names on it. */
    static final String RESERVATION = "idmint.reserved:0";

    private static final Pattern NAME = Pattern.compile("([^-]*)-(\\d{10})");
    private static final Pattern TIMESTAMP = Pattern.compile("\"timestamp\"\\s*:\\s*(\\d{1,19})");

    private final ZkSession zk;
    private final String leafName;
    private final String forever;

    LeafWorkers(ZkSession zk, String leafName) {
        this.zk = zk;
        this.leafName = leafName;
        this.forever = "/snowflake/" + leafName + "/forever";
    }

    String leafName() {
        return leafName;
    }

    /**
     * What Leaf's directory holds: Leaf's workers, idmint's (with when ZooKeeper created each
     * reservation), and the latest time a Leaf node reported.
     */
    record Registrations(Set<Integer> leaf, Map<Integer, Long> idmint, long floorMillis) {
    }

    /**
     * Checks that the request can share Leaf's worker IDs: they mean something only in Leaf's
     * bits (41 ms · 10 worker · 12 sequence, any epoch), in datacenter 0. A preferred worker is
     * taken only if it is one of idmint's free reservations ({@link #choices}).
     */
    static void check(ClaimRequest req, String leafName) throws RegistryException {
        Layout l = Layout.parse(req.layoutSpec());
        boolean leafBits = l.fields().equals(Layout.LEAF.fields()) && l.tickMillis() == 1
                && l.bits(Layout.Field.TIME) == 41 && l.bits(Layout.Field.WORKER) == 10
                && l.bits(Layout.Field.SEQUENCE) == 12;
        if (!leafBits || req.datacenterId() != 0) {
            throw new RegistryException(Kind.CONFLICT, "leaf-name=" + leafName + " shares "
                    + "Leaf's worker IDs, which hold only in Leaf's layout (time=41,worker=10,"
                    + "sequence=12, e.g. layout=leaf) in datacenter 0; this node has layout '"
                    + req.layoutSpec() + "' and datacenter " + req.datacenterId());
        }
    }

    /** Reads every registration under Leaf's {@code forever} znode. */
    Registrations read(CuratorFramework c) throws RegistryException {
        Set<Integer> leaf = new TreeSet<>();
        Map<String, Integer> idmintPaths = new HashMap<>();
        List<String> paths = new ArrayList<>();
        for (String name : zk.childrenOrEmpty(c, forever)) {
            Matcher m = NAME.matcher(name);
            if (!m.matches()) {
                throw new RegistryException(Kind.CONFLICT, "Leaf registration " + forever + "/"
                        + name + " is not IP:PORT-NNNNNNNNNN, so its worker ID is unknown");
            }
            long seq = Long.parseLong(m.group(2));
            int worker = seq > Integer.MAX_VALUE ? Integer.MAX_VALUE : (int) seq;
            if (m.group(1).equals(RESERVATION)) {
                idmintPaths.put(forever + "/" + name, worker);
            } else {
                leaf.add(worker);
            }
            paths.add(forever + "/" + name);
        }
        long floor = 0;
        Map<Integer, Long> idmint = new TreeMap<>();
        for (Map.Entry<String, Node> e : zk.readAll(c, paths).entrySet()) {
            Integer reserved = idmintPaths.get(e.getKey());
            if (reserved != null) {
                idmint.put(reserved, e.getValue().stat().getCtime());
            } else {
                floor = Math.max(floor, timestamp(e.getKey(), e.getValue().data()));
            }
        }
        return new Registrations(leaf, idmint, floor);
    }

    /**
     * The worker IDs to try, in order: idmint's reserved ones that nobody holds (the preferred
     * worker first when it is one of them: a preference is taken only when free, and only a
     * reserved ID is free here), else one newly reserved. A reservation that was never claimed
     * (no HWM) is its creator's, about to claim it, until it is a lease TTL old: then its creator
     * is taken for dead and others may claim it. Either way the owner znode decides who holds it.
     *
     * @throws RegistryException POOL_FULL when ZooKeeper's next number is past the layout's
     */
    List<Integer> choices(CuratorFramework c, ClaimRequest req, Registrations r,
            Set<Integer> owned, Set<Integer> stored) throws RegistryException {
        List<Integer> free = new ArrayList<>();
        long abandoned = System.currentTimeMillis() - req.leaseTtlMillis();
        for (Map.Entry<Integer, Long> e : r.idmint().entrySet()) {
            int w = e.getKey();
            boolean settled = stored.contains(w) || e.getValue() < abandoned;
            if (w <= req.maxWorkerId() && !owned.contains(w) && settled) {
                free.add(w == req.preferredWorkerId() ? 0 : free.size(), w);
            }
        }
        if (!free.isEmpty()) {
            return free;
        }
        String path;
        try {
            String data = "{\"ip\":\"" + RESERVATION + "\",\"port\":\"0\",\"timestamp\":"
                    + System.currentTimeMillis() + "}";
            path = c.create().creatingParentsIfNeeded().withMode(CreateMode.PERSISTENT_SEQUENTIAL)
                    .forPath(forever + "/" + RESERVATION + "-",
                            data.getBytes(StandardCharsets.UTF_8));
        } catch (Exception e) {
            throw zk.unavailable("reserving a worker ID under " + forever, e);
        }
        long seq = Long.parseLong(path.substring(path.lastIndexOf('-') + 1));
        if (seq > req.maxWorkerId()) {
            try {
                c.delete().forPath(path); // a number past 1023 is of no use to anyone
            } catch (Exception e) {
                throw zk.unavailable("deleting " + path, e);
            }
            throw new RegistryException(Kind.POOL_FULL, "all " + (req.maxWorkerId() + 1)
                    + " worker IDs of Leaf '" + leafName + "' are held (" + r.leaf().size()
                    + " by Leaf nodes, " + r.idmint().size() + " by idmint workers, all in use;"
                    + " ZooKeeper's next number under " + forever + " is " + seq + ")");
        }
        return List.of((int) seq);
    }

    private static long timestamp(String path, byte[] data) throws RegistryException {
        Matcher m = TIMESTAMP.matcher(new String(data, StandardCharsets.UTF_8));
        if (!m.find()) {
            throw new RegistryException(Kind.CONFLICT, "Leaf registration " + path + " has no "
                    + "\"timestamp\" in its data, so Leaf's last time is unknown");
        }
        return Long.parseLong(m.group(1));
    }
}

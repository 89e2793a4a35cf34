package io.idmint.zookeeper;

import io.idmint.Layout;
import io.idmint.spi.ClaimRequest;
import io.idmint.spi.RegistryException;
import io.idmint.spi.RegistryException.Kind;
import io.idmint.zookeeper.ZkNodes.Owner;
import io.idmint.zookeeper.ZkSession.Node;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.Watcher;

/**
 * Meituan Leaf's worker registrations, shared with idmint ({@code zk://…?leaf-name=NAME},
 * docs/migration.md). A Leaf node registers once as a persistent sequential znode
 * {@code /snowflake/NAME/forever/IP:PORT-000000000N} whose sequence number N is its worker ID
 * and whose data, {@code {"ip":…,"port":…,"timestamp":…}}, it rewrites every 3 s with its clock.
 *
 * <p>idmint takes worker IDs the same way: it creates its own sequential znode there
 * ({@value #RESERVATION}), so ZooKeeper hands it a number that no Leaf node holds and no Leaf
 * node will ever be given (the parent's sequence counter never goes back). The data keeps Leaf's
 * three fields, so Leaf's parser still reads it, and says who made the reservation: {@code ip}
 * is the deployment ({@code {chroot}/{namespace}}, where its owner and HWM znodes live) and
 * {@code port} the node (an ID kept in its data directory, {@value #NODE_ID_FILE}). A
 * reservation belongs to its deployment for good: every other deployment counts it as held, as
 * it does a Leaf node's (a reservation that does not say whose it is, too). Within the
 * deployment it is claimed again, through the owner and HWM znodes, on later starts; a node
 * restarted while its killed run's session still holds its reservation waits for that session
 * to expire rather than use up a number. Every claim starts above the latest time any Leaf node
 * reported.
 */
final class LeafWorkers {

    /** The name of idmint's own registrations: one {@code -}, as Leaf splits names on it. */
    static final String RESERVATION = "idmint.reserved:0";

    /** The file in the data directory that keeps this node's ID. */
    static final String NODE_ID_FILE = "zk-leaf-node-id";

    private static final Pattern NAME = Pattern.compile("([^-]*)-(\\d{10})");
    private static final Pattern TIMESTAMP = Pattern.compile("\"timestamp\"\\s*:\\s*(\\d{1,19})");
    private static final Pattern IP = Pattern.compile("\"ip\"\\s*:\\s*\"([^\"]*)\"");
    private static final Pattern PORT = Pattern.compile("\"port\"\\s*:\\s*\"([^\"]*)\"");
    private static final Pattern NODE_ID =
            Pattern.compile("[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}");

    private final ZkSession zk;
    private final ZkNodes nodes;
    private final String leafName;
    private final String forever;
    private final int timeoutMillis;
    private final Path nodeIdFile;
    private String nodeId;

    LeafWorkers(ZkSession zk, ZkNodes nodes, ZkUri uri, Path nodeIdFile) {
        this.zk = zk;
        this.nodes = nodes;
        this.leafName = uri.leafName();
        this.forever = "/snowflake/" + leafName + "/forever";
        this.timeoutMillis = uri.timeoutMillis();
        this.nodeIdFile = nodeIdFile;
    }

    String leafName() {
        return leafName;
    }

    /**
     * One of idmint's reservations: when ZooKeeper created it, and the deployment and node that
     * made it ("" where its data does not say).
     */
    record Reservation(long createdMillis, String deployment, String node) {
    }

    /**
     * What Leaf's directory holds: Leaf's workers, idmint's reservations, and the latest time a
     * Leaf node reported, each report believed only as far as ZooKeeper's clock when it was
     * written (its znode's {@code mtime}).
     */
    record Registrations(Set<Integer> leaf, Map<Integer, Reservation> idmint, long floorMillis) {
    }

    /**
     * Checks that the request can share Leaf's worker IDs: they mean something only in Leaf's
     * bits (41 ms · 10 worker · 12 sequence, any epoch), in datacenter 0. A preferred worker is
     * taken only if it is one of this deployment's free reservations ({@link #choices}).
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
        Map<Integer, Reservation> idmint = new TreeMap<>();
        for (Map.Entry<String, Node> e : zk.readAll(c, paths).entrySet()) {
            Integer reserved = idmintPaths.get(e.getKey());
            if (reserved != null) {
                String data = new String(e.getValue().data(), StandardCharsets.UTF_8);
                idmint.put(reserved, new Reservation(e.getValue().stat().getCtime(),
                        field(IP, data), field(PORT, data)));
            } else {
                // Workers are disjoint, so Leaf's time orders idmint's IDs after Leaf's and
                // protects no uniqueness: a Leaf node whose clock runs ahead of ZooKeeper's is
                // followed no further than ZooKeeper's clock at its report, or every idmint
                // node would wait for that clock for as long as the Leaf node ran.
                floor = Math.max(floor, Math.min(timestamp(e.getKey(), e.getValue().data()),
                        e.getValue().stat().getMtime()));
            }
        }
        return new Registrations(leaf, idmint, floor);
    }

    /**
     * The worker IDs to try, in order, among this deployment's reservations that nobody holds:
     * the preferred worker first when it is one of them (a preference is taken only when free,
     * and only a reservation is free here), then this node's own, then the others. A reservation
     * that was never claimed (no HWM) is its creator's, about to claim it, until it is a lease TTL
     * old: then its creator is taken for dead and others may claim it. Either way the owner znode
     * decides who holds it. With none free: one of this node's own reservations once the session
     * of a killed run of this node lets it go ({@link #awaitOwn}), else one newly reserved.
     *
     * @throws RegistryException POOL_FULL when ZooKeeper's next number is past the layout's
     */
    List<Integer> choices(CuratorFramework c, ClaimRequest req, Registrations r,
            Set<Integer> owned, Set<Integer> stored) throws RegistryException {
        String deployment = nodes.namespace(req.namespace());
        String node = nodeId();
        List<Integer> free = new ArrayList<>();
        List<Integer> others = new ArrayList<>();
        List<Integer> ownHeld = new ArrayList<>();
        long abandoned = System.currentTimeMillis() - req.leaseTtlMillis();
        for (Map.Entry<Integer, Reservation> e : r.idmint().entrySet()) {
            int w = e.getKey();
            Reservation res = e.getValue();
            boolean mine = res.node().equals(node);
            if (w > req.maxWorkerId() || !res.deployment().equals(deployment)) {
                continue; // another deployment's: held, as a Leaf node's is
            }
            if (owned.contains(w)) {
                if (mine) {
                    ownHeld.add(w);
                }
            } else if (mine) {
                free.add(w);
            } else if (stored.contains(w) || res.createdMillis() < abandoned) {
                others.add(w);
            }
        }
        free.addAll(others);
        if (free.remove(Integer.valueOf(req.preferredWorkerId()))) {
            free.add(0, req.preferredWorkerId());
        }
        if (!free.isEmpty()) {
            return free;
        }
        int back = awaitOwn(c, req.namespace(), ownHeld);
        return List.of(back >= 0 ? back : reserve(c, req, r, deployment, node));
    }

    /**
     * Waits for one of this node's reservations that another session holds (a run of this node
     * killed before it could release) to be let go, as the server expires that session within
     * its timeout, and returns it. Returns -1 at once when this node has none held by another
     * session, and -1 when they are still held after the longest of those sessions' timeouts
     * plus the call timeout: then a live node uses this node's ID (a copied data directory), and
     * a new number is reserved instead.
     */
    private int awaitOwn(CuratorFramework c, String ns, List<Integer> ownHeld)
            throws RegistryException {
        if (ownHeld.isEmpty()) {
            return -1;
        }
        Map<String, Integer> waiting = new LinkedHashMap<>();
        for (int w : ownHeld) {
            waiting.put(nodes.owner(ns, 0, w), w);
        }
        long session = zk.sessionId(c);
        long longest = 0;
        for (Map.Entry<String, Node> e : zk.readAll(c, waiting.keySet()).entrySet()) {
            if (e.getValue().stat().getEphemeralOwner() == session) {
                waiting.remove(e.getKey()); // held by this registry's own session, in use
            } else {
                longest = Math.max(longest,
                        Owner.decode(e.getKey(), e.getValue().data()).sessionTimeoutMillis());
            }
        }
        if (waiting.isEmpty()) {
            return -1;
        }
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(longest + timeoutMillis);
        try {
            for (;;) {
                CountDownLatch changed = new CountDownLatch(1);
                for (Map.Entry<String, Integer> e : waiting.entrySet()) {
                    if (c.checkExists().usingWatcher((Watcher) event -> changed.countDown())
                            .forPath(e.getKey()) == null) {
                        return e.getValue();
                    }
                }
                long left = deadline - System.nanoTime();
                if (left <= 0 || !changed.await(left, TimeUnit.NANOSECONDS)) {
                    return -1;
                }
            }
        } catch (Exception e) {
            throw zk.unavailable("waiting for the session of this node's previous run to let "
                    + "go of worker " + waiting.values(), e);
        }
    }

    /** Creates a new reservation, data shaped like Leaf's, and returns its number. */
    private int reserve(CuratorFramework c, ClaimRequest req, Registrations r, String deployment,
            String node) throws RegistryException {
        String path;
        try {
            String data = "{\"ip\":\"" + deployment + "\",\"port\":\"" + node
                    + "\",\"timestamp\":" + System.currentTimeMillis() + "}";
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
            long ours = r.idmint().values().stream()
                    .filter(x -> x.deployment().equals(deployment)).count();
            throw new RegistryException(Kind.POOL_FULL, "all " + (req.maxWorkerId() + 1)
                    + " worker IDs of Leaf '" + leafName + "' are held (" + r.leaf().size()
                    + " by Leaf nodes, " + ours + " by idmint workers of " + deployment
                    + ", all in use, " + (r.idmint().size() - ours) + " by other idmint "
                    + "deployments; ZooKeeper's next number under " + forever + " is " + seq
                    + ")");
        }
        return (int) seq;
    }

    /**
     * This node's ID, kept in {@link #NODE_ID_FILE} in its data directory (created, a random
     * UUID, on first use), so that a restarted node knows its own reservations.
     */
    private synchronized String nodeId() throws RegistryException {
        if (nodeId != null) {
            return nodeId;
        }
        try {
            if (!Files.exists(nodeIdFile)) {
                Files.createDirectories(nodeIdFile.toAbsolutePath().getParent());
                Path tmp = nodeIdFile.resolveSibling(NODE_ID_FILE + ".tmp");
                try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE,
                        StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
                    ch.write(ByteBuffer.wrap((UUID.randomUUID() + "\n")
                            .getBytes(StandardCharsets.US_ASCII)));
                    ch.force(true);
                }
                Files.move(tmp, nodeIdFile, StandardCopyOption.ATOMIC_MOVE);
            }
            String id = Files.readString(nodeIdFile, StandardCharsets.US_ASCII).trim();
            if (!NODE_ID.matcher(id).matches()) {
                throw new RegistryException(Kind.CORRUPT, "node ID file " + nodeIdFile
                        + " holds '" + id + "', not a UUID; delete it to give this node a new "
                        + "ID (its reservations under " + forever + " then stay unused)");
            }
            nodeId = id;
            return id;
        } catch (IOException | RuntimeException e) {
            throw new RegistryException(Kind.UNAVAILABLE, "cannot keep this node's ID in "
                    + nodeIdFile + ": " + e, e);
        }
    }

    private static String field(Pattern p, String data) {
        Matcher m = p.matcher(data);
        return m.find() ? m.group(1) : "";
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

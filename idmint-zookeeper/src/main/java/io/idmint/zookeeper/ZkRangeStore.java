package io.idmint.zookeeper;

import io.idmint.spi.Range;
import io.idmint.spi.RangeStore;
import io.idmint.spi.RegistryException;
import io.idmint.spi.RegistryException.Kind;
import io.idmint.spi.TagInfo;
import io.idmint.spi.UnknownTagException;
import io.idmint.zookeeper.ZkSession.Node;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;

/**
 * A {@link RangeStore} on ZooKeeper: one persistent znode per tag ({@link ZkNodes#segment})
 * holding {@code "<next> <step>"} as decimal text: the start of the tag's next range and the step
 * it was created with. An allocation reads the znode and writes
 * {@code next + size} with {@code setData} conditional on the version read; {@code BADVERSION}
 * means another client allocated in between, so it reads again. The session and its error
 * mapping are the registry's ({@link ZkSession}): Curator retries nothing, so a write whose
 * answer was lost is UNAVAILABLE and its values are lost, never handed out twice.
 */
final class ZkRangeStore implements RangeStore {

    /**
     * Lost races in a row before giving up with UNAVAILABLE; each loss is another client's
     * allocation. A node's generator allocates a tag once per range, so real contention is low;
     * eight clients hammering one tag in tests lose dozens in a row at worst.
     */
    static final int MAX_ATTEMPTS = 1_000;

    private final ZkSession zk;
    private final ZkNodes nodes;

    ZkRangeStore(ZkUri uri) {
        this.zk = new ZkSession(uri);
        this.nodes = new ZkNodes(uri.chroot());
    }

    ZkSession session() {
        return zk;
    }

    @Override
    public Range allocate(String tag, long size) throws RegistryException {
        if (size < 0) {
            throw new IllegalArgumentException("range size must not be negative, got " + size);
        }
        String path = nodes.segment(tag);
        CuratorFramework c = zk.ready(0);
        for (int attempt = 1; ; attempt++) {
            Node n = zk.readOrNull(c, path);
            if (n == null) {
                throw unknown(tag, path);
            }
            Stored now = Stored.of(path, n.data());
            long k = size == TAG_STEP ? now.step() : size;
            if (now.next() > Long.MAX_VALUE - k) {
                throw new RegistryException(Kind.CORRUPT, "segment tag '" + tag + "' at "
                        + now.next() + " cannot take " + k + " more values without overflow");
            }
            Stored after = new Stored(now.next() + k, now.step());
            try {
                c.setData().withVersion(n.stat().getVersion()).forPath(path, after.bytes());
                return new Range(now.next(), after.next());
            } catch (KeeperException.BadVersionException e) {
                if (attempt == MAX_ATTEMPTS) {
                    throw new RegistryException(Kind.UNAVAILABLE, "lost " + attempt + " races "
                            + "for segment tag '" + tag + "' in a row; retry later", e);
                }
            } catch (KeeperException.NoNodeException e) {
                throw unknown(tag, path);
            } catch (Exception e) {
                throw zk.unavailable("allocating " + k + " values of " + path, e);
            }
        }
    }

    @Override
    public void create(String tag, long start, long step) throws RegistryException {
        if (start < 0) {
            throw new IllegalArgumentException("segment start must be >= 0, got " + start);
        }
        if (step < 1 || step > MAX_STEP) {
            throw new IllegalArgumentException("segment step must be between 1 and 2^40, got "
                    + step);
        }
        String path = nodes.segment(tag);
        CuratorFramework c = zk.ready(0);
        try {
            c.create().creatingParentsIfNeeded().forPath(path, new Stored(start, step).bytes());
        } catch (KeeperException.NodeExistsException e) {
            throw new RegistryException(Kind.CONFLICT, "segment tag '" + tag + "' exists already "
                    + "(znode " + path + ")", e);
        } catch (Exception e) {
            throw zk.unavailable("creating " + path, e);
        }
    }

    @Override
    public List<TagInfo> tags() throws RegistryException {
        CuratorFramework c = zk.ready(0);
        String dir = nodes.segments();
        List<String> paths = new ArrayList<>();
        for (String tag : zk.childrenOrEmpty(c, dir)) {
            paths.add(dir + "/" + tag);
        }
        List<TagInfo> out = new ArrayList<>();
        for (Map.Entry<String, Node> e : zk.readAll(c, paths).entrySet()) {
            String path = e.getKey();
            Stored v = Stored.of(path, e.getValue().data());
            out.add(new TagInfo(path.substring(dir.length() + 1), v.next(), v.step()));
        }
        out.sort(Comparator.comparing(TagInfo::tag));
        return out;
    }

    @Override
    public void close() {
        zk.close();
    }

    private static UnknownTagException unknown(String tag, String path) {
        return new UnknownTagException(tag, "segment tag '" + tag + "' does not exist (znode "
                + path + ")");
    }

    /** A tag's data: {@code "<next> <step>"}, decimal, the start of its next range first. */
    private record Stored(long next, long step) {

        byte[] bytes() {
            return ZkNodes.bytes(next + " " + step);
        }

        static Stored of(String path, byte[] data) throws RegistryException {
            String s = ZkNodes.text(data);
            String[] parts = s.split(" ", -1);
            try {
                if (parts.length == 2) {
                    Stored v = new Stored(Long.parseLong(parts[0]), Long.parseLong(parts[1]));
                    if (v.next() >= 0 && v.step() >= 1 && v.step() <= MAX_STEP) {
                        return v;
                    }
                }
            } catch (NumberFormatException e) {
                // reported below
            }
            throw new RegistryException(Kind.CORRUPT, "znode " + path + " holds '" + s
                    + "', not a segment tag's '<next> <step>'");
        }
    }
}

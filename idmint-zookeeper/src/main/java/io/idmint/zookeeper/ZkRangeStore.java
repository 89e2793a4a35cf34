package io.idmint.zookeeper;

import io.idmint.spi.Range;
import io.idmint.spi.RangeStore;
import io.idmint.spi.RegistryException;
import io.idmint.spi.RegistryException.Kind;
import io.idmint.spi.TagInfo;
import io.idmint.spi.UnknownTagException;
import io.idmint.spi.support.TagValue;
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
        TagValue.checkAllocation(tag, size);
        String path = nodes.segment(tag);
        CuratorFramework c = zk.ready(0);
        for (int attempt = 1; ; attempt++) {
            Node n = zk.readOrNull(c, path);
            if (n == null) {
                throw unknown(tag, path);
            }
            TagValue now = parse(path, n.data());
            TagValue after = now.allocate(tag, size);
            try {
                c.setData().withVersion(n.stat().getVersion())
                        .forPath(path, ZkNodes.bytes(after.text()));
                return new Range(now.next(), after.next());
            } catch (KeeperException.BadVersionException e) {
                if (attempt == MAX_ATTEMPTS) {
                    throw new RegistryException(Kind.UNAVAILABLE, "lost " + attempt + " races "
                            + "for segment tag '" + tag + "' in a row; retry later", e);
                }
            } catch (KeeperException.NoNodeException e) {
                throw unknown(tag, path);
            } catch (Exception e) {
                throw zk.unavailable("allocating " + (after.next() - now.next()) + " values of "
                        + path, e);
            }
        }
    }

    @Override
    public void create(String tag, long start, long step) throws RegistryException {
        TagValue first = TagValue.created(tag, start, step);
        String path = nodes.segment(tag);
        CuratorFramework c = zk.ready(0);
        try {
            c.create().creatingParentsIfNeeded().forPath(path, ZkNodes.bytes(first.text()));
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
            TagValue v = parse(path, e.getValue().data());
            out.add(new TagInfo(path.substring(dir.length() + 1), v.next(), v.step()));
        }
        out.sort(Comparator.comparing(TagInfo::tag));
        return out;
    }

    @Override
    public void define(String name, String definition) throws RegistryException {
        TagValue.checkDefinition(name, definition);
        String path = nodes.serial(name);
        CuratorFramework c = zk.ready(0);
        try {
            c.create().creatingParentsIfNeeded().forPath(path, ZkNodes.bytes(definition));
            return;
        } catch (KeeperException.NodeExistsException e) {
            // compared below
        } catch (Exception e) {
            throw zk.unavailable("creating " + path, e);
        }
        TagValue.requireSameDefinition(name, definition, definition(name), "znode " + path);
    }

    @Override
    public String definition(String name) throws RegistryException {
        Node n = zk.readOrNull(zk.ready(0), nodes.serial(name));
        return n == null ? null : ZkNodes.text(n.data());
    }

    @Override
    public java.util.SortedMap<String, String> definitions() throws RegistryException {
        CuratorFramework c = zk.ready(0);
        String dir = nodes.serials();
        List<String> paths = new ArrayList<>();
        for (String name : zk.childrenOrEmpty(c, dir)) {
            paths.add(dir + "/" + name);
        }
        java.util.SortedMap<String, String> out = new java.util.TreeMap<>();
        for (Map.Entry<String, Node> e : zk.readAll(c, paths).entrySet()) {
            out.put(e.getKey().substring(dir.length() + 1), ZkNodes.text(e.getValue().data()));
        }
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

    private static TagValue parse(String path, byte[] data) throws RegistryException {
        return TagValue.parse(ZkNodes.text(data), "znode " + path);
    }
}

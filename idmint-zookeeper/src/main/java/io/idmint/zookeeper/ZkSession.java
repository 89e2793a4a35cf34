package io.idmint.zookeeper;

import io.idmint.spi.RegistryException;
import io.idmint.spi.RegistryException.Kind;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.retry.RetryNTimes;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.client.ZKClientConfig;
import org.apache.zookeeper.data.Stat;

/**
 * The Curator client of one registry (or range store) and what its connection state means for
 * callers. The client starts with the first call (so that its session timeout can follow the
 * first claim's lease TTL) and retries nothing: the core owns retries, and a retried conditional
 * write whose first answer was lost would report a spurious conflict. Also the primitive reads
 * and writes the registry and the range store build on, each mapping a failure to UNAVAILABLE.
 *
 * <p>Curator's {@link ConnectionState}s decide how a call behaves:
 * <ul>
 *   <li>{@code CONNECTED}/{@code RECONNECTED}: calls go to the server.</li>
 *   <li>{@code SUSPENDED}: the connection dropped; the session may still be alive. Every call
 *       fails at once as UNAVAILABLE, so the core stops extending and runs down its runway instead
 *       of blocking on a dead connection.</li>
 *   <li>{@code LOST}: the session expired and its ephemeral owner znodes are gone (Curator then
 *       opens a new session). Claims made in the old session fail as LEASE_LOST on their next
 *       extend ({@link #sessionId} changed), and the core re-claims.</li>
 * </ul>
 */
final class ZkSession implements AutoCloseable {

    /** A znode's data and stat as read. */
    record Node(byte[] data, Stat stat) {
    }

    private static final int LIST_SESSION_MILLIS = 30_000;

    private final ZkUri uri;
    private CuratorFramework client;
    private final ZkSecurity security;
    private boolean closed;
    private volatile boolean everConnected;
    private volatile ConnectionState state;

    /**
     * A session for {@code uri}; connects with the first call.
     *
     * @throws IllegalArgumentException when a PEM or password file the URI names is unreadable
     */
    ZkSession(ZkUri uri) {
        this.uri = uri;
        this.security = ZkSecurity.check(uri);
    }

    /**
     * The client, connected: waits up to the timeout for the first connection, but fails at once
     * while a connection that was up is suspended or lost.
     *
     * @param leaseTtlMillis the session timeout to ask for if this call starts the client and the
     *     URI sets none; 0 for the default
     */
    CuratorFramework ready(long leaseTtlMillis) throws RegistryException {
        CuratorFramework c = started(leaseTtlMillis);
        if (!everConnected) {
            try {
                if (!c.blockUntilConnected(uri.timeoutMillis(), TimeUnit.MILLISECONDS)) {
                    String tls = security.explainTls(uri.timeoutMillis());
                    throw new RegistryException(Kind.UNAVAILABLE, "no ZooKeeper server of " + uri
                            + " answered within " + uri.timeoutMillis() + " ms"
                            + (tls == null ? "" : ": " + tls));
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new RegistryException(Kind.UNAVAILABLE, "interrupted while connecting to "
                        + uri, e);
            }
            everConnected = true;
        } else if (!c.getZookeeperClient().isConnected() || state == ConnectionState.SUSPENDED
                || state == ConnectionState.LOST) {
            ConnectionState s = state;
            throw new RegistryException(Kind.UNAVAILABLE, "connection to " + uri + " is "
                    + (s == ConnectionState.LOST ? "lost (session expired)" : "suspended")
                    + "; not waiting for it");
        }
        return c;
    }

    synchronized CuratorFramework started(long leaseTtlMillis) throws RegistryException {
        if (closed) {
            throw new RegistryException(Kind.UNAVAILABLE, "ZooKeeper client of " + uri
                    + " is closed");
        }
        if (client == null) {
            long wanted = !uri.sessionFromLease() ? uri.sessionMillis()
                    : leaseTtlMillis > 0 ? leaseTtlMillis : LIST_SESSION_MILLIS;
            ZKClientConfig config = new ZKClientConfig();
            config.setProperty(ZKClientConfig.ZOOKEEPER_REQUEST_TIMEOUT,
                    Integer.toString(uri.timeoutMillis()));
            CuratorFrameworkFactory.Builder b = CuratorFrameworkFactory.builder();
            try {
                security.apply(config, b);
            } catch (RuntimeException e) {
                throw new RegistryException(Kind.UNAVAILABLE, e.getMessage(), e);
            }
            CuratorFramework c;
            try {
                c = b.connectString(uri.connectString())
                        .sessionTimeoutMs((int) Math.min(wanted, Integer.MAX_VALUE))
                        .connectionTimeoutMs(uri.timeoutMillis())
                        .retryPolicy(new RetryNTimes(0, 0))
                        .zkClientConfig(config)
                        .ensembleTracker(false)
                        .dontUseContainerParents()
                        .defaultData(new byte[0])
                        .build();
                c.getConnectionStateListenable().addListener((cf, s) -> {
                    state = s;
                    if (s.isConnected()) {
                        everConnected = true;
                    }
                });
                c.start();
            } catch (RuntimeException e) {
                security.close(); // the next call writes the key store again
                throw e;
            }
            client = c;
        }
        return client;
    }

    /**
     * The current session's ID. Curator opens a new session (with a new ID) after one expired.
     *
     * @throws RegistryException UNAVAILABLE while no session is established
     */
    long sessionId(CuratorFramework c) throws RegistryException {
        long id;
        try {
            id = c.getZookeeperClient().getZooKeeper().getSessionId();
        } catch (Exception e) {
            throw unavailable("reading the session", e);
        }
        if (id == 0) {
            throw new RegistryException(Kind.UNAVAILABLE, "no ZooKeeper session with " + uri
                    + " yet");
        }
        return id;
    }

    /** The session timeout the server granted (ms). */
    int sessionTimeoutMillis(CuratorFramework c) {
        try {
            return c.getZookeeperClient().getZooKeeper().getSessionTimeout();
        } catch (Exception e) {
            return c.getZookeeperClient().getLastNegotiatedSessionTimeoutMs();
        }
    }

    /**
     * Reads many znodes at once (pipelined asynchronous reads, one wait); absent znodes are left
     * out of the result.
     */
    Map<String, Node> readAll(CuratorFramework c, Collection<String> paths)
            throws RegistryException {
        Map<String, Node> out = new ConcurrentHashMap<>();
        if (paths.isEmpty()) {
            return out;
        }
        AtomicReference<Code> failure = new AtomicReference<>();
        CountDownLatch done = new CountDownLatch(paths.size());
        try {
            ZooKeeper zk = c.getZookeeperClient().getZooKeeper();
            for (String p : paths) {
                zk.getData(p, false, (rc, path, ctx, data, stat) -> {
                    if (rc == Code.OK.intValue()) {
                        out.put(path, new Node(data, stat));
                    } else if (rc != Code.NONODE.intValue()) {
                        failure.compareAndSet(null, Code.get(rc));
                    }
                    done.countDown();
                }, null);
            }
            if (!done.await(uri.timeoutMillis(), TimeUnit.MILLISECONDS)) {
                throw new RegistryException(Kind.UNAVAILABLE, "reading " + paths.size()
                        + " znodes from " + uri + " took longer than " + uri.timeoutMillis()
                        + " ms");
            }
        } catch (RegistryException e) {
            throw e;
        } catch (Exception e) {
            throw unavailable("reading " + paths.size() + " znodes", e);
        }
        if (failure.get() != null) {
            throw unavailable("reading " + paths.size() + " znodes",
                    KeeperException.create(failure.get()));
        }
        return out;
    }

    /**
     * Writes a setting that is fixed on first use (layout, datacenter name), or checks that the
     * stored one is the same.
     *
     * @throws RegistryException CONFLICT with {@code conflict}'s message for the stored value
     */
    void createOrCompare(CuratorFramework c, String path, String value,
            Function<String, String> conflict) throws RegistryException {
        try {
            c.create().creatingParentsIfNeeded().forPath(path, ZkNodes.bytes(value));
            return;
        } catch (KeeperException.NodeExistsException e) {
            // compare below
        } catch (Exception e) {
            throw unavailable("writing " + path, e);
        }
        Node n = readOrNull(c, path);
        String stored = n == null ? value : ZkNodes.text(n.data());
        if (!stored.equals(value)) {
            throw new RegistryException(Kind.CONFLICT, conflict.apply(stored));
        }
    }

    /** Creates a persistent znode and its parents unless it exists (never container znodes). */
    void ensure(CuratorFramework c, String path) throws RegistryException {
        try {
            c.create().creatingParentsIfNeeded().forPath(path, new byte[0]);
        } catch (KeeperException.NodeExistsException e) {
            // already there
        } catch (Exception e) {
            throw unavailable("creating " + path, e);
        }
    }

    /**
     * Writes an empty value to a znode (creating it the first time) and returns the write's
     * {@code mtime}: the ZooKeeper leader's clock (Unix ms) when it took the write.
     */
    long touch(CuratorFramework c, String path) throws RegistryException {
        for (int pass = 0; ; pass++) {
            try {
                return c.setData().forPath(path, new byte[0]).getMtime();
            } catch (KeeperException.NoNodeException e) {
                if (pass > 0) {
                    throw unavailable("writing " + path, e);
                }
                ensure(c, path);
            } catch (Exception e) {
                throw unavailable("writing " + path, e);
            }
        }
    }

    /** The children's names; none when the znode does not exist. */
    List<String> childrenOrEmpty(CuratorFramework c, String path) throws RegistryException {
        try {
            return c.getChildren().forPath(path);
        } catch (KeeperException.NoNodeException e) {
            return List.of();
        } catch (Exception e) {
            throw unavailable("listing " + path, e);
        }
    }

    /** The znode's data and stat, or null when it does not exist. */
    Node readOrNull(CuratorFramework c, String path) throws RegistryException {
        Stat stat = new Stat();
        try {
            byte[] data = c.getData().storingStatIn(stat).forPath(path);
            return new Node(data == null ? new byte[0] : data, stat);
        } catch (KeeperException.NoNodeException e) {
            return null;
        } catch (Exception e) {
            throw unavailable("reading " + path, e);
        }
    }

    /** The index of the operation that failed a multi(), or -1. */
    static int failedOp(Exception e) {
        if (e instanceof KeeperException k && k.getResults() != null) {
            List<OpResult> rs = k.getResults();
            for (int i = 0; i < rs.size(); i++) {
                if (rs.get(i) instanceof OpResult.ErrorResult er && er.getErr() != 0
                        && er.getErr() != Code.RUNTIMEINCONSISTENCY.intValue()) {
                    return i;
                }
            }
        }
        return -1;
    }

    /**
     * Whether a failed call may still have been applied: the request may have reached the server
     * before the connection dropped or the wait timed out.
     */
    static boolean outcomeUnknown(Exception e) {
        if (!(e instanceof KeeperException k)) {
            return true;
        }
        return switch (k.code()) {
            case CONNECTIONLOSS, OPERATIONTIMEOUT, REQUESTTIMEOUT, SESSIONEXPIRED, SESSIONMOVED,
                    SYSTEMERROR, MARSHALLINGERROR -> true;
            default -> false;
        };
    }

    /** An UNAVAILABLE error for a call that failed on the way to or from the store. */
    RegistryException unavailable(String what, Exception e) {
        if (e instanceof InterruptedException) {
            Thread.currentThread().interrupt();
        }
        if (e instanceof KeeperException.NoAuthException) {
            String user = uri.security().user();
            return new RegistryException(Kind.UNAVAILABLE, what + " on " + uri + " failed: "
                    + "ZooKeeper refused " + (user == null ? "this unauthenticated client"
                    : "user " + user + " (a wrong password is another digest identity)")
                    + " by the znode's ACL (NOAUTH)", e);
        }
        String why = e instanceof KeeperException k ? k.code().toString() : e.toString();
        return new RegistryException(Kind.UNAVAILABLE, what + " on " + uri + " failed: " + why, e);
    }

    @Override
    public void close() {
        CuratorFramework c;
        synchronized (this) {
            closed = true;
            c = client;
            client = null;
        }
        if (c != null) {
            // Closes the session: its ephemeral owner znodes go at once, like a release without
            // the final HWM (the stored HWM stays at the last reservation).
            c.close();
        }
        security.close();
    }

    @Override
    public String toString() {
        return uri.toString();
    }
}

package io.idmint.zookeeper;

import io.idmint.WorkerRegistries;
import io.idmint.segment.RangeStores;
import io.idmint.spi.RangeStore;
import io.idmint.spi.RegistryException;
import io.idmint.testkit.Poll;
import io.idmint.testkit.fixture.ZkServer;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.lang.reflect.Field;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;
import org.apache.zookeeper.ClientCnxn;
import org.apache.zookeeper.Watcher.Event.KeeperState;
import org.apache.zookeeper.ZooKeeper;

/** Real ZooKeeper servers in this JVM (Curator's curator-test), bound to 127.0.0.1, and helpers. */
final class ZkTesting {

    private ZkTesting() {
    }

    /** A registry under the class's chroot on {@code zk}. */
    static ZkRegistry open(ZkServer zk, String options) {
        return open(zk.connectString(), zk.chroot(), options, Path.of("unused"));
    }

    /** A registry under {@code chroot}, for a node whose data directory is {@code dataDir}. */
    static ZkRegistry open(String connectString, String chroot, String options, Path dataDir) {
        return (ZkRegistry) WorkerRegistries.open("zk://" + connectString + chroot
                + (options.isEmpty() ? "" : "?" + options), dataDir);
    }

    /** A range store client under the class's chroot on {@code zk}. */
    static RangeStore openRangeStore(ZkServer zk, String options) {
        return openRangeStore(zk.connectString() + zk.chroot(), options);
    }

    /**
     * A range store client, through the URI and ServiceLoader as a node would open it;
     * {@code where} is {@code host:port,...} and an optional chroot.
     */
    static RangeStore openRangeStore(String where, String options) {
        return RangeStores.open("zk://" + where + (options.isEmpty() ? "" : "?" + options),
                Path.of("unused"));
    }

    /** The registry's Curator client (started by its first call). */
    static CuratorFramework curator(ZkRegistry registry) {
        return client(registry.session());
    }

    /** The session's Curator client (started by its first call), connected or not. */
    static CuratorFramework client(ZkSession session) {
        try {
            return session.started(0);
        } catch (RegistryException e) {
            throw new AssertionError(e);
        }
    }

    /**
     * Expires a client's session on the server at once, the way a server does when the client
     * has been silent too long: another handle joins the session and closes it.
     */
    static void expireOnServer(CuratorFramework client, String connectString) throws Exception {
        ZooKeeper zk = client.getZookeeperClient().getZooKeeper();
        CountDownLatch joined = new CountDownLatch(1);
        ZooKeeper other = new ZooKeeper(connectString, 10_000, e -> {
            if (e.getState() == KeeperState.SyncConnected) {
                joined.countDown();
            }
        }, zk.getSessionId(), zk.getSessionPasswd());
        try {
            if (!joined.await(10, TimeUnit.SECONDS)) {
                throw new AssertionError("could not join session " + zk.getSessionId());
            }
        } finally {
            other.close();
        }
    }

    /**
     * Stops a client the way {@code kill -9} stops a node: its connection closes without a word
     * to the server, which keeps the session and its ephemeral znodes until the session timeout.
     * ({@code ClientCnxn.disconnect()} is {@code close()} without the close-session request.)
     */
    static void killWithoutClosing(CuratorFramework client) throws Exception {
        Field cnxn = ZooKeeper.class.getDeclaredField("cnxn");
        cnxn.setAccessible(true);
        ((ClientCnxn) cnxn.get(client.getZookeeperClient().getZooKeeper())).disconnect();
    }

    /** {@link Poll#until} in milliseconds: how long the condition took to hold. */
    static long await(String what, long timeoutMillis, BooleanSupplier condition)
            throws InterruptedException {
        return Poll.until(Duration.ofMillis(timeoutMillis), what, condition).toMillis();
    }

    /** The ensemble member that leads, by the {@code srvr} command. */
    static InstanceSpec leader(TestingCluster cluster) throws Exception {
        for (InstanceSpec s : cluster.getInstances()) {
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress("127.0.0.1", s.getPort()), 2_000);
                socket.setSoTimeout(2_000);
                OutputStream out = socket.getOutputStream();
                out.write("srvr".getBytes(StandardCharsets.US_ASCII));
                out.flush();
                BufferedReader in = new BufferedReader(new InputStreamReader(
                        socket.getInputStream(), StandardCharsets.US_ASCII));
                for (String line = in.readLine(); line != null; line = in.readLine()) {
                    if (line.equals("Mode: leader")) {
                        return s;
                    }
                }
            } catch (java.io.IOException e) {
                // not answering: not the leader
            }
        }
        throw new AssertionError("no member of " + cluster.getConnectString() + " leads");
    }
}

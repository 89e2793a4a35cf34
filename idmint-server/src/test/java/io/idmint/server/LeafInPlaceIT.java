package io.idmint.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.idmint.IdParts;
import io.idmint.Layout;
import io.idmint.server.harness.Http;
import io.idmint.server.harness.TestServers;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.CreateMode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Leaf snowflake in place, end to end (docs/migration.md): a server with {@code layout=leaf} on
 * Leaf's ZooKeeper ({@code leaf-name=}) answers Leaf's {@code /api/snowflake/get/{key}} with IDs
 * that continue Leaf's, from a worker ID no Leaf node holds.
 */
class LeafInPlaceIT {

    @TempDir
    Path data;

    @Test
    void leafEndpoint_mintsLeafIdsFromAWorkerIdLeafDoesNotHold() throws Exception {
        InstanceSpec spec = new InstanceSpec(null, -1, -1, -1, true, -1, 100, 0,
                Map.of("clientPortAddress", "127.0.0.1", "admin.enableServer", "false"),
                "127.0.0.1");
        try (TestingServer zk = new TestingServer(spec, true);
                CuratorFramework leaf = CuratorFrameworkFactory.newClient(zk.getConnectString(),
                        new RetryOneTime(100))) {
            leaf.start();
            long leafTime = System.currentTimeMillis();
            // Two Leaf nodes, registered as Leaf's SnowflakeZookeeperHolder does: workers 0, 1.
            for (String ip : new String[] {"10.0.0.1", "10.0.0.2"}) {
                leaf.create().creatingParentsIfNeeded().withMode(CreateMode.PERSISTENT_SEQUENTIAL)
                        .forPath("/snowflake/orders/forever/" + ip + ":8080-",
                                ("{\"ip\":\"" + ip + "\",\"port\":\"8080\",\"timestamp\":"
                                        + leafTime + "}").getBytes(StandardCharsets.UTF_8));
            }
            long lastLeafId = ((leafTime - Layout.TWITTER_EPOCH_MILLIS) << 22) | (1L << 12) | 99;
            Server server = TestServers.start(data, "layout=leaf", "registry=zk://"
                    + zk.getConnectString() + "/idmint-it?leaf-name=orders");
            try {
                Http http = new Http(server.httpPort());

                Http.Response r = http.get("/api/snowflake/get/order");

                assertThat(r.status()).isEqualTo(200);
                long id = Long.parseLong(r.body());
                IdParts p = Layout.LEAF.decode(id);
                assertThat(p.workerId()).isEqualTo(2);
                assertThat(p.timestampMillis()).isGreaterThanOrEqualTo(leafTime);
                assertThat(id).isGreaterThan(lastLeafId);
                assertThat(leaf.getChildren().forPath("/snowflake/orders/forever"))
                        .contains("idmint.reserved:0-0000000002");
            } finally {
                server.close();
            }
        }
    }
}

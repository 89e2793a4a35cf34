package io.idmint.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idmint.WorkerRegistries;
import io.idmint.segment.RangeStores;
import io.idmint.spi.Claim;
import io.idmint.spi.ClaimRequest;
import io.idmint.spi.RangeStore;
import io.idmint.spi.RegistryException;
import io.idmint.spi.WorkerRecord;
import io.idmint.spi.WorkerRegistry;
import io.idmint.testkit.LocalProcesses;
import io.idmint.testkit.TestPki;
import io.idmint.testkit.fixture.ZkServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryNTimes;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs.Perms;
import org.apache.zookeeper.data.ACL;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The registry and the segment store over {@code zks://} against a real ZooKeeper whose secure
 * client port demands a client certificate signed by the test authority; and digest
 * authentication: idmint's znodes are writable by its user only.
 */
class ZkSecurityIT {

    private static Path dir;
    private static TestPki ca;
    private static TestPki.Issued client;
    private static int securePort;
    private static TestingServer tlsServer;
    @RegisterExtension
    static final ZkServer plain = ZkServer.shared();

    private final String ns = "t" + UUID.randomUUID().toString().substring(0, 8);

    @BeforeAll
    static void start() throws Exception {
        dir = Files.createTempDirectory("idmint-zk-tls-");
        ca = TestPki.create(dir, "zk-ca");
        client = ca.client("idmint-client");
        TestPki.Issued server = ca.peer("zk-server");
        Path keyStore = Files.writeString(dir.resolve("server.pem"),
                Files.readString(server.certificate()) + "\n"
                        + Files.readString(server.privateKey()));
        securePort = LocalProcesses.freePort();
        InstanceSpec spec = ZkServer.spec(-1, 100);
        Map<String, Object> props = new HashMap<>(spec.getCustomProperties());
        props.put("secureClientPort", Integer.toString(securePort));
        props.put("serverCnxnFactory", "org.apache.zookeeper.server.NettyServerCnxnFactory");
        props.put("ssl.keyStore.location", keyStore.toString());
        props.put("ssl.keyStore.type", "PEM");
        props.put("ssl.trustStore.location", ca.certificate().toString());
        props.put("ssl.trustStore.type", "PEM");
        props.put("ssl.clientAuth", "need");
        tlsServer = new TestingServer(new InstanceSpec(null, spec.getPort(),
                spec.getElectionPort(), spec.getQuorumPort(), true, -1, 100, 0, props,
                "127.0.0.1"), true);
    }

    @AfterAll
    static void stop() throws Exception {
        try {
            tlsServer.close();
        } finally {
            LocalProcesses.deleteTree(dir);
        }
    }

    @Test
    void registryAndSegments_workOverTlsWithClientCertificate() throws Exception {
        String uri = tlsUri(ca) + "&cert-file=" + client.certificate() + "&key-file="
                + client.privateKey();
        try (WorkerRegistry r = WorkerRegistries.open(uri, Path.of("unused"))) {
            Claim c = r.claim(request("tls"));
            assertThat(r.list(ns)).extracting(WorkerRecord::workerId)
                    .containsExactly(c.workerId());
            r.release(c, c.hwmMillis());
        }
        try (RangeStore s = RangeStores.open(uri, Path.of("unused"))) {
            s.create(ns, 1, 100);
            assertThat(s.allocate(ns, 100).start()).isEqualTo(1);
            assertThat(s.allocate(ns, 100).start()).isEqualTo(101);
        }
    }

    @Test
    void tlsAndPlainDigestClients_inOneJvm_keepTheirOwnSettings() throws Exception {
        String tls = tlsUri(ca) + "&cert-file=" + client.certificate() + "&key-file="
                + client.privateKey();
        Path password = Files.writeString(dir.resolve(ns + ".both"), "both");
        try (WorkerRegistry secure = WorkerRegistries.open(tls, Path.of("unused"));
                WorkerRegistry plain = WorkerRegistries.open(digestUri(password), Path.of("."))) {
            Claim a = secure.claim(request("secure"));
            Claim b = plain.claim(request("plain"));
            assertThat(secure.list(ns)).extracting(WorkerRecord::holder).containsExactly("secure");
            assertThat(plain.list(ns)).extracting(WorkerRecord::holder).containsExactly("plain");
            secure.release(a, a.hwmMillis());
            plain.release(b, b.hwmMillis());
        }
    }

    @Test
    void wrongCa_failsNamingTheServerAndCertificate() {
        TestPki other = TestPki.create(dir.resolve("other"), "other-ca");
        String uri = tlsUri(other) + "&cert-file=" + client.certificate() + "&key-file="
                + client.privateKey();
        long start = System.nanoTime();
        try (WorkerRegistry r = WorkerRegistries.open(uri, Path.of("unused"))) {
            assertThatThrownBy(() -> r.claim(request("wrong-ca")))
                    .isInstanceOf(RegistryException.class)
                    .hasMessageContaining("TLS handshake with 127.0.0.1:" + securePort)
                    .hasMessageContaining("certificate");
        }
        // The 3 s timeout, then one handshake to find out why.
        assertThat((System.nanoTime() - start) / 1_000_000).isLessThan(5_000);
    }

    @Test
    void noClientCertificate_whenTheServerDemandsOne_failsNamingTheCertificate() {
        try (WorkerRegistry r = WorkerRegistries.open(tlsUri(ca), Path.of("unused"))) {
            assertThatThrownBy(() -> r.claim(request("no-cert")))
                    .isInstanceOf(RegistryException.class)
                    .hasMessageContaining("TLS handshake with 127.0.0.1:" + securePort)
                    .hasMessageContaining("client certificate");
        }
    }

    @Test
    void digest_idmintWorks_andOthersCanReadButNotWriteItsZnodes() throws Exception {
        Path password = Files.writeString(dir.resolve(ns + ".password"), "s3cret\n");
        String uri = digestUri(password);
        String hwm = "/idmint-auth-" + ns + "/" + ns + "/dc/0/hwm/0";
        try (WorkerRegistry r = WorkerRegistries.open(uri, Path.of("unused"));
                CuratorFramework anonymous = anonymous()) {
            Claim c = r.claim(request("digest"));
            assertThat(c.workerId()).isZero();
            List<ACL> acl = anonymous.getACL().forPath(hwm);
            assertThat(acl).extracting(a -> a.getId().getScheme() + ":" + a.getPerms())
                    .containsExactlyInAnyOrder("digest:" + Perms.ALL, "world:" + Perms.READ);
            assertThat(anonymous.getData().forPath(hwm)).isNotEmpty();
            assertThatThrownBy(() -> anonymous.setData().forPath(hwm, new byte[] {'9'}))
                    .isInstanceOf(KeeperException.NoAuthException.class);
            assertThatThrownBy(() -> anonymous.create().forPath(hwm.replace("/0/hwm/0",
                    "/0/hwm/1"))).isInstanceOf(KeeperException.NoAuthException.class);
            assertThatThrownBy(() -> anonymous.delete().deletingChildrenIfNeeded()
                    .forPath("/idmint-auth-" + ns))
                    .isInstanceOf(KeeperException.NoAuthException.class);
            long token = r.extend(c, System.currentTimeMillis() + 1_000);
            assertThat(token).isGreaterThan(c.token());
            r.release(c.withToken(token), c.hwmMillis());
        }
    }

    @Test
    void digest_wrongPassword_isRefusedByTheAcl() throws Exception {
        Path right = Files.writeString(dir.resolve(ns + ".right"), "right");
        Path wrong = Files.writeString(dir.resolve(ns + ".wrong"), "wrong");
        try (WorkerRegistry r = WorkerRegistries.open(digestUri(right), Path.of("unused"))) {
            r.release(r.claim(request("right")), 0);
        }
        try (WorkerRegistry r = WorkerRegistries.open(digestUri(wrong), Path.of("unused"))) {
            assertThatThrownBy(() -> r.claim(request("wrong")))
                    .isInstanceOf(RegistryException.class)
                    .hasMessageContaining("ZooKeeper refused user idmint")
                    .hasMessageContaining("NOAUTH");
        }
    }

    @Test
    void missingPasswordFile_isAClearErrorAtOpen() {
        String uri = digestUri(dir.resolve("nowhere.password"));
        assertThatThrownBy(() -> WorkerRegistries.open(uri, Path.of("unused")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("cannot read password-file '" + dir.resolve(
                        "nowhere.password") + "'");
    }

    /**
     * Regression: the client key was copied to the temporary directory before the start could
     * still fail, and a failed start never deleted the copy; each retry left another. (The
     * password is now read once, at open; a key file gone by the start still fails it.)
     */
    @Test
    void failingStart_leavesNoCopyOfTheClientKey() throws Exception {
        Path key = Files.copy(client.privateKey(), dir.resolve(ns + ".key"));
        String uri = tlsUri(ca) + "&cert-file=" + client.certificate() + "&key-file=" + key;
        try (WorkerRegistry r = WorkerRegistries.open(uri, Path.of("unused"))) {
            Files.delete(key); // readable at open, gone when the client starts
            for (int attempt = 0; attempt < 2; attempt++) {
                assertThatThrownBy(() -> r.claim(request("no-key")))
                        .isInstanceOf(RegistryException.class)
                        .hasMessageContaining("cannot read cert-file and key-file")
                        .hasMessageContaining(key.toString());
            }
            assertThat(keyCopies()).as("copies of the client key in java.io.tmpdir").isEmpty();
        }
    }

    @Test
    void password_isReadOnceAtOpen() throws Exception {
        Path password = Files.writeString(dir.resolve(ns + ".once"), "once");
        try (WorkerRegistry r = WorkerRegistries.open(digestUri(password), Path.of("unused"))) {
            Files.delete(password); // the client starts with the password read at open
            r.release(r.claim(request("once")), 0);
        }
    }

    /** Files in the temporary directory holding this test's client key. */
    private static List<Path> keyCopies() throws Exception {
        String key = Files.readString(client.privateKey()).strip();
        try (var files = Files.list(Path.of(System.getProperty("java.io.tmpdir")))) {
            return files.filter(f -> f.getFileName().toString().startsWith("idmint-zk-"))
                    .filter(f -> {
                        try {
                            return Files.isRegularFile(f) && Files.readString(f).contains(key);
                        } catch (IOException e) {
                            return false; // another user's, or already deleted
                        }
                    })
                    .toList();
        }
    }

    private String tlsUri(TestPki authority) {
        return "zks://127.0.0.1:" + securePort + "/idmint-tls?timeout=3s&ca-file="
                + authority.certificate();
    }

    /** A URI with digest authentication, its chroot this test's own. */
    private String digestUri(Path passwordFile) {
        return "zk://" + plain.connectString() + "/idmint-auth-" + ns
                + "?auth=digest&user=idmint"
                + "&password-file=" + passwordFile;
    }

    private static CuratorFramework anonymous() {
        CuratorFramework c = CuratorFrameworkFactory.newClient(plain.connectString(),
                new RetryNTimes(0, 0));
        c.start();
        return c;
    }

    private ClaimRequest request(String holder) {
        return new ClaimRequest(ns, "time=41,sequence=12", 0, "", 3, -1, 30_000, holder);
    }
}

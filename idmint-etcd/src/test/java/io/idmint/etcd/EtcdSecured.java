package io.idmint.etcd;

import static io.idmint.etcd.EtcdStore.bytes;

import io.etcd.jetcd.Auth;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.auth.Permission;
import io.idmint.testkit.EtcdCluster;
import io.idmint.testkit.LocalProcesses;
import io.idmint.testkit.TestPki;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;

/**
 * A TLS etcd member for tests with the files a node needs: the test authority, a client
 * certificate, and (once {@link #enableAuth} ran) etcd users with their password files.
 */
final class EtcdSecured implements AutoCloseable {

    static final String PREFIX = "/idmint-tls";
    static final String ROOT_PASSWORD = "root-secret";

    final Path dir;
    final TestPki ca;
    final TestPki.Issued client;
    final EtcdCluster etcd;

    EtcdSecured(boolean clientCertAuth) throws Exception {
        dir = Files.createTempDirectory("idmint-etcd-tls-");
        ca = TestPki.create(dir, "etcd-ca");
        client = ca.client("idmint-client");
        etcd = EtcdCluster.startTls(1, ca, clientCertAuth);
    }

    /** {@code etcds://member/PREFIX?ca-file=…&timeout=…} followed by {@code extra}. */
    String uri(String timeout, String extra) {
        return "etcds://" + etcd.endpoints() + PREFIX + "?ca-file=" + ca.certificate()
                + "&timeout=" + timeout + extra;
    }

    /** The {@code &cert-file=…&key-file=…} of the client certificate. */
    String clientCertificate() {
        return "&cert-file=" + client.certificate() + "&key-file=" + client.privateKey();
    }

    /** A file holding {@code password}. */
    Path passwordFile(String name, String password) throws Exception {
        return Files.writeString(dir.resolve(name + ".password"), password + "\n");
    }

    /**
     * Adds root, a role {@code name} that may read and write under {@code PREFIX/} and a user
     * {@code name} with that role, then turns etcd's authentication on.
     */
    void enableAuth(String name, String password) throws Exception {
        try (Client admin = admin(null)) {
            Auth auth = admin.getAuthClient();
            auth.roleAdd(bytes("root")).get(10, TimeUnit.SECONDS);
            auth.userAdd(bytes("root"), bytes(ROOT_PASSWORD)).get(10, TimeUnit.SECONDS);
            auth.userGrantRole(bytes("root"), bytes("root")).get(10, TimeUnit.SECONDS);
            addUser(auth, name, password, PREFIX + "/");
            auth.authEnable().get(10, TimeUnit.SECONDS);
        }
    }

    /** Adds a user with a role that may read and write the keys under {@code keyPrefix}. */
    static void addUser(Auth auth, String name, String password, String keyPrefix)
            throws Exception {
        auth.roleAdd(bytes(name)).get(10, TimeUnit.SECONDS);
        auth.roleGrantPermission(bytes(name), bytes(keyPrefix), prefixEnd(keyPrefix),
                Permission.Type.READWRITE).get(10, TimeUnit.SECONDS);
        auth.userAdd(bytes(name), bytes(password)).get(10, TimeUnit.SECONDS);
        auth.userGrantRole(bytes(name), bytes(name)).get(10, TimeUnit.SECONDS);
    }

    /** A jetcd client over TLS; as root once auth is on (rootPassword not null). */
    Client admin(String rootPassword) throws Exception {
        var b = Client.builder().endpoints("https://" + etcd.endpoints())
                .sslContext(s -> s.trustManager(ca.certificate().toFile())
                        .keyManager(client.certificate().toFile(), client.privateKey().toFile()));
        if (rootPassword != null) {
            b.user(bytes("root")).password(bytes(rootPassword));
        }
        return b.build();
    }

    private static ByteSequence prefixEnd(String prefix) {
        byte[] b = prefix.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        byte[] end = Arrays.copyOf(b, b.length);
        end[end.length - 1]++;
        return ByteSequence.from(end);
    }

    @Override
    public void close() {
        try {
            etcd.close();
        } finally {
            LocalProcesses.deleteTree(dir);
        }
    }
}

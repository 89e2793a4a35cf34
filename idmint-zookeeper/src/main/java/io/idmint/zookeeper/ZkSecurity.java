package io.idmint.zookeeper;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.idmint.spi.support.UriSecurity;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.NoRouteToHostException;
import java.net.SocketException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLSocket;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.api.ACLProvider;
import org.apache.zookeeper.ClientCnxnSocketNIO;
import org.apache.zookeeper.ClientCnxnSocketNetty;
import org.apache.zookeeper.ZooDefs.Ids;
import org.apache.zookeeper.ZooDefs.Perms;
import org.apache.zookeeper.client.ZKClientConfig;
import org.apache.zookeeper.common.ClientX509Util;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Id;
import org.apache.zookeeper.server.auth.DigestAuthenticationProvider;

/**
 * TLS and digest authentication of one ZooKeeper client, set on that client's own
 * {@link ZKClientConfig} and Curator builder (never as JVM-wide system properties, so two
 * registries in one JVM can use different settings).
 *
 * <p>With {@code auth=digest}, every znode created at or under the chroot carries the ACL
 * "the digest user may do anything, anyone may read": other clients can list and read idmint's
 * state but cannot change or delete it. Znodes outside the chroot (its parents, and the
 * reservations of Leaf mode in Leaf's own tree, which Leaf must be able to read and create
 * under) stay open, as ZooKeeper creates them by default.
 */
final class ZkSecurity implements AutoCloseable {

    private final ZkUri uri;
    /** {@code user:password} of the digest user, or null without authentication. */
    private final String userPassword;
    // Set by apply and cleared by close, both under the ZkSession's lock.
    private ZKClientConfig config;
    private Path keyStore;

    private ZkSecurity(ZkUri uri, String userPassword) {
        this.uri = uri;
        this.userPassword = userPassword;
    }

    /**
     * Checks, when a registry or store opens, that the URI's files can be read and reads its
     * password, so that a mistake fails the start instead of every later call.
     *
     * @throws IllegalArgumentException naming the file or variable
     */
    static ZkSecurity check(ZkUri uri) {
        UriSecurity s = uri.security();
        s.checkFiles("ZooKeeper " + uri);
        return new ZkSecurity(uri, s.user() == null ? null
                : s.user() + ":" + new String(uri.password(), UTF_8));
    }

    /**
     * Applies the URI's TLS and authentication settings to a client about to be built, and keeps
     * {@code config} for {@link #explainTls}. Everything that can fail comes before the key store
     * is written, so a failure leaves no copy of the key.
     */
    void apply(ZKClientConfig config, CuratorFrameworkFactory.Builder b) {
        List<ACL> acl = userPassword == null ? null : secured(userPassword);
        Path ca = uri.security().caFile();
        Path keys = uri.security().certFile() == null ? null : keyStore(uri);
        try (ClientX509Util x509 = new ClientX509Util()) {
            config.setProperty(ZKClientConfig.SECURE_CLIENT, Boolean.toString(uri.tls()));
            config.setProperty(ZKClientConfig.ZOOKEEPER_CLIENT_CNXN_SOCKET, (uri.tls()
                    ? ClientCnxnSocketNetty.class : ClientCnxnSocketNIO.class).getName());
            config.setProperty(x509.getSslTruststoreLocationProperty(),
                    ca == null ? "" : ca.toString());
            config.setProperty(x509.getSslTruststoreTypeProperty(), ca == null ? "" : "PEM");
            config.setProperty(x509.getSslKeystoreLocationProperty(),
                    keys == null ? "" : keys.toString());
            config.setProperty(x509.getSslKeystoreTypeProperty(), keys == null ? "" : "PEM");
        }
        if (userPassword != null) {
            b.authorization("digest", userPassword.getBytes(UTF_8));
            b.aclProvider(new Acls(uri.chroot(), acl));
        }
        this.config = config;
        this.keyStore = keys;
    }

    /** The ACL of idmint's znodes: the user may do anything, anyone may read. */
    private static List<ACL> secured(String userPassword) {
        try {
            String digest = DigestAuthenticationProvider.generateDigest(userPassword);
            // Not List.of: ZooKeeper asks the list whether it contains null.
            return Collections.unmodifiableList(Arrays.asList(
                    new ACL(Perms.ALL, new Id("digest", digest)),
                    new ACL(Perms.READ, Ids.ANYONE_ID_UNSAFE)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("this JVM has no SHA-1 for ZooKeeper digests", e);
        }
    }

    /**
     * ZooKeeper's client reads its key and certificate from one PEM file, by name (its TLS
     * client takes no in-memory key): write both, readable by this user only, for as long as
     * the client lives (docs/registries.md, "ZooKeeper: digest authentication and zks://").
     */
    private static Path keyStore(ZkUri uri) {
        String pem;
        try {
            pem = Files.readString(uri.security().certFile()) + "\n"
                    + Files.readString(uri.security().keyFile());
        } catch (IOException e) {
            throw new IllegalArgumentException("ZooKeeper " + uri + ": cannot read cert-file and "
                    + "key-file: " + e, e);
        }
        Path f = null;
        try {
            f = Files.createTempFile("idmint-zk-", ".pem",
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString(
                            "rw-------")));
            f.toFile().deleteOnExit();
            return Files.writeString(f, pem);
        } catch (IOException e) {
            delete(f);
            throw new UncheckedIOException("ZooKeeper " + uri + ": cannot write the key store "
                    + "of cert-file and key-file", e);
        }
    }

    private static void delete(Path keyStore) {
        if (keyStore != null) {
            try {
                Files.deleteIfExists(keyStore);
            } catch (IOException e) {
                // a temporary file; deleted on exit as well
            }
        }
    }

    /**
     * Why no server of a TLS ensemble answered, when it is the TLS handshake: tries one with the
     * client's settings against each server; null when none fails that way.
     */
    String explainTls(int timeoutMillis) {
        if (!uri.tls() || config == null) {
            return null;
        }
        for (String hostPort : uri.connectString().split(",")) {
            int colon = hostPort.lastIndexOf(':');
            String host = hostPort.substring(0, colon).replace("[", "").replace("]", "");
            int port = Integer.parseInt(hostPort.substring(colon + 1));
            try (ClientX509Util x509 = new ClientX509Util();
                    SSLSocket s = (SSLSocket) x509.createSSLContext(config).getSocketFactory()
                            .createSocket()) {
                s.connect(new InetSocketAddress(host, port), timeoutMillis);
                s.setSoTimeout(timeoutMillis);
                s.startHandshake();
                // TLS 1.3: a server that rejects the client certificate says so after the
                // handshake, in an alert the first read returns, or it just closes.
                s.setSoTimeout(Math.min(timeoutMillis, 500));
                if (s.getInputStream().read() < 0) {
                    return tlsFailed(hostPort, "the server closed the connection after the "
                            + "handshake");
                }
            } catch (ConnectException | NoRouteToHostException e) {
                // not reachable: the caller's message stands
            } catch (SSLException e) {
                return tlsFailed(hostPort, e.getMessage());
            } catch (SocketException e) {
                return tlsFailed(hostPort, "the server reset the connection: " + e.getMessage());
            } catch (Exception e) {
                // not a TLS problem (or not reachable): the caller's message stands
            }
        }
        return null;
    }

    private String tlsFailed(String hostPort, String why) {
        return "TLS handshake with " + hostPort + " failed; check the servers' certificate "
                + "against ca-file" + (uri.security().certFile() == null
                ? " and whether they demand a client certificate (cert-file, key-file)"
                : " and that they accept cert-file") + ": " + why;
    }

    @Override
    public void close() {
        delete(keyStore);
        keyStore = null;
    }

    /** Secured ACLs at and under the chroot, ZooKeeper's open default elsewhere. */
    private record Acls(String chroot, List<ACL> secured) implements ACLProvider {

        @Override
        public List<ACL> getDefaultAcl() {
            return Ids.OPEN_ACL_UNSAFE;
        }

        @Override
        public List<ACL> getAclForPath(String path) {
            return path.equals(chroot) || path.startsWith(chroot + "/") ? secured
                    : Ids.OPEN_ACL_UNSAFE;
        }
    }
}

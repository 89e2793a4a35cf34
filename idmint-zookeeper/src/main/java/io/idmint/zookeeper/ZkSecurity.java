package io.idmint.zookeeper;

import static java.nio.charset.StandardCharsets.UTF_8;

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
    private final Path keyStore;

    private ZkSecurity(ZkUri uri, Path keyStore) {
        this.uri = uri;
        this.keyStore = keyStore;
    }

    /**
     * Applies the URI's TLS and authentication settings to a client about to be built.
     *
     * @throws IllegalArgumentException when a PEM or password file cannot be read
     */
    static ZkSecurity apply(ZkUri uri, ZKClientConfig config, CuratorFrameworkFactory.Builder b) {
        Path keyStore = null;
        try (ClientX509Util x509 = new ClientX509Util()) {
            config.setProperty(ZKClientConfig.SECURE_CLIENT, Boolean.toString(uri.tls()));
            config.setProperty(ZKClientConfig.ZOOKEEPER_CLIENT_CNXN_SOCKET, (uri.tls()
                    ? ClientCnxnSocketNetty.class : ClientCnxnSocketNIO.class).getName());
            config.setProperty(x509.getSslTruststoreLocationProperty(),
                    uri.caFile() == null ? "" : readable(uri, "ca-file", uri.caFile()).toString());
            config.setProperty(x509.getSslTruststoreTypeProperty(), uri.caFile() == null ? ""
                    : "PEM");
            if (uri.certFile() != null) {
                keyStore = keyStore(uri);
            }
            config.setProperty(x509.getSslKeystoreLocationProperty(),
                    keyStore == null ? "" : keyStore.toString());
            config.setProperty(x509.getSslKeystoreTypeProperty(), keyStore == null ? "" : "PEM");
        }
        if (uri.user() != null) {
            String userPassword = uri.user() + ":" + new String(uri.password(), UTF_8);
            b.authorization("digest", userPassword.getBytes(UTF_8));
            b.aclProvider(new Acls(uri.chroot(), secured(userPassword)));
        }
        return new ZkSecurity(uri, keyStore);
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
     * Checks, when a registry or store opens, that the URI's files can be read and its password
     * is there, so that a mistake fails the start instead of every later call.
     *
     * @throws IllegalArgumentException naming the file or variable
     */
    static void check(ZkUri uri) {
        for (Path f : new Path[] {uri.caFile(), uri.certFile(), uri.keyFile()}) {
            if (f != null) {
                readable(uri, f == uri.caFile() ? "ca-file" : f == uri.certFile() ? "cert-file"
                        : "key-file", f);
            }
        }
        if (uri.user() != null) {
            uri.password();
        }
    }

    /**
     * ZooKeeper reads a PEM key store from one file holding key and certificate: write both,
     * readable by this user only, for as long as the client lives.
     */
    private static Path keyStore(ZkUri uri) {
        try {
            String pem = Files.readString(readable(uri, "cert-file", uri.certFile())) + "\n"
                    + Files.readString(readable(uri, "key-file", uri.keyFile()));
            Path f = Files.createTempFile("idmint-zk-", ".pem",
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString(
                            "rw-------")));
            f.toFile().deleteOnExit();
            return Files.writeString(f, pem);
        } catch (IOException e) {
            throw new UncheckedIOException("ZooKeeper " + uri + ": cannot write the key store "
                    + "of cert-file and key-file", e);
        }
    }

    private static Path readable(ZkUri uri, String option, Path file) {
        if (!Files.isRegularFile(file) || !Files.isReadable(file)) {
            throw new IllegalArgumentException("ZooKeeper " + uri + ": " + option + " '" + file
                    + "' does not exist or is not a readable file");
        }
        return file;
    }

    /**
     * Why no server of a TLS ensemble answered, when it is the TLS handshake: tries one with the
     * client's settings against each server; null when none fails that way.
     */
    String explainTls(ZKClientConfig config, int timeoutMillis) {
        if (!uri.tls()) {
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
                + "against ca-file" + (uri.certFile() == null
                ? " and whether they demand a client certificate (cert-file, key-file)"
                : " and that they accept cert-file") + ": " + why;
    }

    @Override
    public void close() {
        if (keyStore != null) {
            try {
                Files.deleteIfExists(keyStore);
            } catch (IOException e) {
                // a temporary file; deleted on exit as well
            }
        }
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

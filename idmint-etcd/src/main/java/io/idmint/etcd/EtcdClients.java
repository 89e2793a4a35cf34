package io.idmint.etcd;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.ClientBuilder;
import io.grpc.ClientInterceptor;
import io.grpc.Status;
import io.grpc.netty.GrpcSslContexts;
import io.idmint.spi.support.UriSecurity;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import java.net.SocketException;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import javax.net.ssl.SSLException;

/**
 * Builds the jetcd client an {@link EtcdUri} describes (TLS from PEM files, user and password)
 * and turns the failures TLS and authentication cause into messages an operator can act on.
 *
 * <p>jetcd authenticates lazily, on the first call, and keeps the token it gets. When etcd
 * rejects that token later (it expired, or the auth store changed since), jetcd asks for a new
 * one and retries the call once.
 */
final class EtcdClients {

    private EtcdClients() {
    }

    /**
     * A client for one member of {@code uri} ({@code endpoint}, one of its endpoints); connects
     * lazily. The store picks the member of each attempt itself, so each client has one.
     *
     * @throws IllegalArgumentException when a PEM or password file is missing or unreadable, or
     *     a password environment variable is not set
     */
    static Client build(EtcdUri uri, String endpoint, ExecutorService executor,
            ClientInterceptor deadline) {
        ClientBuilder b = Client.builder()
                .endpoints(endpoint)
                .executorService(executor)
                .interceptor(deadline)
                .connectTimeout(uri.timeout())
                .retryDelay(100)
                .retryMaxDelay(500)
                .retryMaxAttempts(1)
                // A call while no connection is up fails with the connection's own error (a TLS
                // handshake, a refused connection) instead of waiting out the timeout blind.
                .waitForReady(false);
        if (uri.tls()) {
            b.sslContext(sslContext(uri));
        }
        if (uri.security().user() != null) {
            b.user(EtcdStore.bytes(uri.security().user()))
                    .password(ByteSequence.from(uri.password()));
        }
        return b.build();
    }

    private static SslContext sslContext(EtcdUri uri) {
        UriSecurity s = uri.security();
        s.checkFiles("etcd " + uri);
        SslContextBuilder b = GrpcSslContexts.forClient();
        try {
            if (s.caFile() != null) {
                b.trustManager(s.caFile().toFile());
            }
            if (s.certFile() != null) {
                b.keyManager(s.certFile().toFile(), s.keyFile().toFile());
            }
            return b.build();
        } catch (SSLException | IllegalArgumentException e) {
            throw new IllegalArgumentException("etcd " + uri + ": cannot use the TLS files ("
                    + "PEM certificates; a PKCS#8 PEM key, 'BEGIN PRIVATE KEY'): " + e.getMessage(),
                    e);
        }
    }

    /**
     * What went wrong, when a call failed for TLS or authentication; null for anything else.
     */
    static String explain(EtcdUri uri, Throwable failure) {
        UriSecurity security = uri.security();
        String user = security.user();
        for (Throwable c = failure; c != null; c = c.getCause()) {
            if (c instanceof SSLException) {
                boolean refused = String.valueOf(c.getMessage()).contains("fatal alert");
                return "TLS handshake with " + String.join(",", uri.endpoints()) + " failed: "
                        + (!refused ? "the members' certificate is not trusted by "
                        + (security.caFile() == null ? "the JVM (set ca-file)" : "ca-file")
                        : security.certFile() == null ? "the members demand a client certificate "
                        + "(set cert-file and key-file)"
                        : "the members refused the client certificate of cert-file")
                        + ": " + c.getMessage();
            }
        }
        Status s = Status.fromThrowable(failure);
        String d = "";
        for (Throwable c = failure; c != null && d.isEmpty(); c = c.getCause()) {
            // jetcd wraps the failed authentication (INVALID_ARGUMENT, with etcd's words) in
            // an UNAUTHENTICATED status without them.
            String described = Status.fromThrowable(c).getDescription();
            d = described == null ? "" : described;
        }
        String lower = d.toLowerCase(Locale.ROOT);
        if (lower.contains("authentication failed") || lower.contains("user name is empty")
                || lower.contains("invalid auth token")) {
            return user == null ? "etcd requires authentication: set user= and "
                    + "password-file= (or a client certificate with etcds://): " + d
                    : "etcd refused user " + user + ": " + d;
        }
        if (lower.contains("permission denied")) {
            return "etcd denied " + (user == null ? "this client" : "user " + user)
                    + " access under " + uri.prefix() + " (grant its role readwrite on the "
                    + "prefix): " + d;
        }
        if (!uri.tls() && s.getCode() == Status.Code.UNAVAILABLE
                && (lower.contains("network closed") || lower.contains("connection reset")
                || lower.contains("first received frame was not settings")
                || connectionReset(failure))) {
            return "etcd " + String.join(",", uri.endpoints()) + " closed the plain-text "
                    + "connection; if the members serve TLS, write etcds://: " + d;
        }
        return null;
    }

    /** Whether a socket in the chain was reset (gRPC may say only "io exception" then). */
    private static boolean connectionReset(Throwable failure) {
        for (Throwable c = failure; c != null; c = c.getCause()) {
            if (c instanceof SocketException && String.valueOf(c.getMessage())
                    .toLowerCase(Locale.ROOT).contains("connection reset")) {
                return true;
            }
        }
        return false;
    }
}

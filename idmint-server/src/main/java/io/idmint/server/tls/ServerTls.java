package io.idmint.server.tls;

import io.grpc.netty.GrpcSslContexts;
import io.idmint.TimeSource;
import io.idmint.server.config.Config;
import io.idmint.server.ops.Metrics;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.net.KeyCertOptions;
import io.vertx.core.net.TrustOptions;
import java.io.UncheckedIOException;
import java.lang.System.Logger.Level;
import java.net.Socket;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLException;
import javax.net.ssl.X509ExtendedKeyManager;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * The TLS of {@code serve}: the PEM files of {@code tls.cert}, {@code tls.key} and
 * {@code tls.client-ca}, read again every {@link #PERIOD}. HTTP and gRPC take
 * their certificate and key, and check client certificates, through one key manager and one
 * trust manager that ask the newest good {@link TlsMaterial} at each handshake: new connections
 * get new files, open ones keep what they were made with, and files that do not parse or do not
 * match are refused with one warning while the old material stays in use (docs/http-grpc.md,
 * "TLS"). A certificate not valid yet is refused likewise, and taken once its notBefore has
 * passed.
 */
public final class ServerTls implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(ServerTls.class.getName());
    /** How often the files are read again. */
    public static final Duration PERIOD = Duration.ofSeconds(5);

    /** One good generation of material, named by the alias the key manager hands out. */
    private record Generation(String alias, TlsMaterial material) {
    }

    private final TlsMaterial.Files files;
    private final TimeSource time;
    private final Consumer<String> warn;
    private final Metrics metrics;
    private final ScheduledExecutorService poller;
    private volatile Generation current;
    /** The generation before, for a handshake that chose its alias just before a reload. */
    private volatile Generation previous;
    /** The contents last read, good or refused: unchanged files are not parsed again. */
    private byte[][] seen;
    /** When the files seen, refused as not valid yet, become valid: read again then; or null. */
    private Instant validFrom;
    private int generations;

    private ServerTls(TlsMaterial.Files files, TimeSource time, Consumer<String> warn,
            Metrics metrics) {
        this.files = files;
        this.time = time;
        this.warn = warn;
        this.metrics = metrics;
        this.seen = files.read();
        this.current = next(parse(seen));
        this.poller = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "idmint-tls-reload");
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * Reads and checks the files named by the configuration and starts reading them again every
     * {@code period} ({@link #PERIOD} in {@code serve}); null when {@code tls.cert} is not set.
     *
     * @param warn hears a refused reload
     * @throws IllegalArgumentException naming the key and the file that is missing, unreadable,
     *     not PEM, expired or not matching
     */
    public static ServerTls open(Config config, TimeSource time, Consumer<String> warn,
            Metrics metrics, Duration period) {
        TlsMaterial.Files files = TlsMaterial.Files.of(config.get(Config.TLS_CERT),
                config.get(Config.TLS_KEY), config.get(Config.TLS_CLIENT_CA));
        if (files == null) {
            return null;
        }
        ServerTls tls = new ServerTls(files, time, warn, metrics);
        metrics.bindTls(() -> tls.current.material().notAfter());
        tls.poller.scheduleWithFixedDelay(tls::reload, period.toNanos(), period.toNanos(),
                TimeUnit.NANOSECONDS);
        return tls;
    }

    /** Whether clients must present a certificate ({@code tls.client-ca} is set). */
    public boolean mutual() {
        return files.clientCa() != null;
    }

    /** The material new handshakes get. */
    public TlsMaterial material() {
        return current.material();
    }

    /**
     * Reads the files now, as the poller does: when they changed, takes them if they are good,
     * else logs one warning and keeps the current material.
     *
     * @return whether new material was taken
     */
    public synchronized boolean reload() {
        byte[][] now;
        try {
            now = files.read();
        } catch (IllegalArgumentException e) {
            return refuse(null, e);
        }
        boolean due = validFrom != null
                && !Instant.ofEpochMilli(time.currentTimeMillis()).isBefore(validFrom);
        if (Arrays.deepEquals(now, seen) && !due) {
            return false;
        }
        seen = now;
        validFrom = null;
        TlsMaterial material;
        try {
            material = parse(now);
        } catch (TlsMaterial.NotYetValid e) {
            // Refused once, with one warning; taken when it becomes valid, as if written then.
            validFrom = e.notBefore();
            return due ? false : refuse(now, e);
        } catch (RuntimeException e) { // any: one escaping the poller would end all reloads
            return refuse(now, e);
        }
        previous = current;
        current = next(material);
        metrics.tlsReload(true);
        LOG.log(Level.INFO, "TLS: new handshakes get certificate "
                + TlsMaterial.subject(material.leaf()) + " serial " + material.serial()
                + ", expiring " + material.notAfter() + ", from tls.cert '" + files.cert() + "'");
        return true;
    }

    private boolean refuse(byte[][] contents, RuntimeException e) {
        if (contents == null && seen == null) {
            return false; // the same unreadable file, warned about already
        }
        seen = contents;
        metrics.tlsReload(false);
        warn.accept("TLS: refused the changed files, still serving certificate serial "
                + current.material().serial() + ": "
                + (e instanceof IllegalArgumentException ? e.getMessage() : e.toString()));
        return false;
    }

    private Generation next(TlsMaterial material) {
        return new Generation("idmint-" + ++generations, material);
    }

    private TlsMaterial parse(byte[][] contents) {
        return TlsMaterial.parse(files, contents[0], contents[1], contents[2],
                Instant.ofEpochMilli(time.currentTimeMillis()));
    }

    /** Vert.x's HTTP server: TLS only, with client certificates when {@link #mutual()}. */
    public HttpServerOptions http(HttpServerOptions options) {
        options.setSsl(true).setKeyCertOptions(KeyCertOptions.wrap(new Keys()));
        if (mutual()) {
            options.setTrustOptions(TrustOptions.wrap(new Trust()))
                    .setClientAuth(io.vertx.core.http.ClientAuth.REQUIRED);
        }
        return options;
    }

    /** grpc-java's Netty server: TLS only (JDK provider), with client certificates likewise. */
    public SslContext grpc() {
        SslContextBuilder builder = GrpcSslContexts.configure(
                SslContextBuilder.forServer(new Keys()), SslProvider.JDK);
        if (mutual()) {
            builder.trustManager(new Trust()).clientAuth(ClientAuth.REQUIRE);
        }
        try {
            return builder.build();
        } catch (SSLException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Stops reading the files. */
    @Override
    public void close() {
        poller.shutdownNow();
    }

    /** The certificate and key of the newest generation, asked at each handshake. */
    private final class Keys extends X509ExtendedKeyManager {

        private Generation of(String alias) {
            Generation c = current;
            Generation p = previous;
            return c.alias().equals(alias) ? c : p != null && p.alias().equals(alias) ? p : null;
        }

        @Override
        public String chooseEngineServerAlias(String keyType, Principal[] issuers,
                SSLEngine engine) {
            return chooseServerAlias(keyType, issuers, null);
        }

        @Override
        public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
            Generation g = current;
            // TLS 1.2 may ask for "EC_EC" or "RSA_EC": the key's type, then its signer's.
            String type = keyType.contains("_") ? keyType.substring(0, keyType.indexOf('_'))
                    : keyType;
            return type.equals(g.material().key().getAlgorithm()) ? g.alias() : null;
        }

        @Override
        public X509Certificate[] getCertificateChain(String alias) {
            Generation g = of(alias);
            return g == null ? null : g.material().chain().toArray(X509Certificate[]::new);
        }

        @Override
        public PrivateKey getPrivateKey(String alias) {
            Generation g = of(alias);
            return g == null ? null : g.material().key();
        }

        @Override
        public String[] getServerAliases(String keyType, Principal[] issuers) {
            String alias = chooseServerAlias(keyType, issuers, null);
            return alias == null ? null : new String[] {alias};
        }

        @Override
        public String[] getClientAliases(String keyType, Principal[] issuers) {
            return null;
        }

        @Override
        public String chooseClientAlias(String[] keyType, Principal[] issuers, Socket socket) {
            return null;
        }
    }

    /** Client certificates checked against the newest generation's {@code tls.client-ca}. */
    private final class Trust extends X509ExtendedTrustManager {

        private X509ExtendedTrustManager now() {
            return current.material().clientTrust();
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket)
                throws CertificateException {
            now().checkClientTrusted(chain, authType, socket);
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType,
                SSLEngine engine) throws CertificateException {
            now().checkClientTrusted(chain, authType, engine);
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType)
                throws CertificateException {
            now().checkClientTrusted(chain, authType);
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket)
                throws CertificateException {
            throw new CertificateException("this server trusts client certificates only");
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType,
                SSLEngine engine) throws CertificateException {
            throw new CertificateException("this server trusts client certificates only");
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType)
                throws CertificateException {
            throw new CertificateException("this server trusts client certificates only");
        }

        @Override
        public X509Certificate[] getAcceptedIssuers() {
            return now().getAcceptedIssuers();
        }
    }
}

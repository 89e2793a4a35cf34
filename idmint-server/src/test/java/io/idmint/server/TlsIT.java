package io.idmint.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ForwardingClientCall;
import io.grpc.ForwardingClientCallListener;
import io.grpc.Grpc;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.NettyChannelBuilder;
import io.idmint.TimeSource;
import io.idmint.grpc.v1.IdServiceGrpc;
import io.idmint.grpc.v1.NextIdsRequest;
import io.idmint.server.harness.Cli;
import io.idmint.server.harness.TestServers;
import io.idmint.server.ops.Metrics;
import io.idmint.server.tls.ServerTls;
import io.idmint.server.tls.TlsMaterial;
import io.idmint.testkit.TestPki;
import io.idmint.testkit.TestTime;
import io.netty.handler.ssl.SslContextBuilder;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.math.BigInteger;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSession;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * HTTP and gRPC over TLS on in-JVM servers: who is served and who is refused, mutual TLS, and
 * certificate files replaced while the server runs (taken when good, refused when not).
 */
class TlsIT {

    /** A poll period no test lasts: the tests' own {@code reload()} calls are the only ones. */
    private static final Duration BY_HAND = Duration.ofDays(1);

    @TempDir
    Path dir;

    private TestPki ca;
    private TestPki otherCa;
    private Path cert;
    private Path key;
    private final List<String> warnings = new CopyOnWriteArrayList<>();
    private final List<AutoCloseable> open = new ArrayList<>();

    @BeforeEach
    void pki() throws IOException {
        ca = TestPki.create(dir.resolve("pki"), "test-ca");
        otherCa = TestPki.create(dir.resolve("other"), "other-ca");
        cert = dir.resolve("tls/node.crt");
        key = dir.resolve("tls/node.key");
        Files.createDirectories(cert.getParent());
        install(ca.peer("node"));
    }

    @AfterEach
    void close() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
    }

    @Test
    void httpAndGrpc_overTls_answerAClientTrustingTheCa() throws Exception {
        Server server = start();

        assertThat(server.banner()).startsWith("idmint serving https://127.0.0.1:"
                + server.httpPort() + " grpc 127.0.0.1:" + server.grpcPort() + " with TLS (");
        HttpResponse<String> r = get(server, client(ca, null), "/api/v1/ids?count=2");
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).contains("\"ids\"");
        assertThat(nextIds(channel(server, ca, null), 3)).hasSize(3);
    }

    @Test
    void plaintextClient_isRefusedOnBoth() throws Exception {
        Server server = start();

        assertThatThrownBy(() -> HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + server.httpPort() + "/api/v1/ids")).build(),
                HttpResponse.BodyHandlers.ofString())).isInstanceOf(IOException.class);
        ManagedChannel plain = NettyChannelBuilder.forAddress("127.0.0.1", server.grpcPort())
                .usePlaintext().build();
        open.add(plain::shutdownNow);
        assertUnavailable(plain);
    }

    @Test
    void clientTrustingAnotherCa_isRefusedOnBoth() throws Exception {
        Server server = start();

        assertThatThrownBy(() -> get(server, client(otherCa, null), "/api/v1/ids"))
                .isInstanceOf(javax.net.ssl.SSLHandshakeException.class);
        assertUnavailable(channel(server, otherCa, null));
    }

    @Test
    void mutualTls_servesAGoodClientCertificate_refusesNoneAndAnotherCas() throws Exception {
        Server server = start("tls.client-ca=" + ca.certificate());
        TestPki.Issued alice = ca.client("alice");
        TestPki.Issued mallory = otherCa.client("mallory");

        assertThat(server.banner()).contains(" with mutual TLS (");
        assertThat(get(server, client(ca, alice), "/api/v1/ids").statusCode()).isEqualTo(200);
        assertThat(nextIds(channel(server, ca, alice), 1)).hasSize(1);
        for (TestPki.Issued refused : new TestPki.Issued[] {null, mallory}) {
            assertThatThrownBy(() -> get(server, client(ca, refused), "/api/v1/ids"))
                    .isInstanceOf(IOException.class);
            assertUnavailable(channel(server, ca, refused));
        }
    }

    @Test
    void reload_newFiles_newConnectionsGetThem_openOnesKeepGoing() throws Exception {
        Server server = start();
        BigInteger before = serial(cert);
        SSLSocket old = socket(server);
        assertThat(serial(old.getSession())).isEqualTo(before);
        assertThat(request(old)).startsWith("HTTP/1.1 200");
        SerialCapture oldGrpc = new SerialCapture();
        ManagedChannel oldChannel = channel(server, ca, null);
        assertThat(nextIds(oldChannel, oldGrpc, 1)).hasSize(1);
        assertThat(oldGrpc.serial()).isEqualTo(before);

        install(ca.peer("node-2"));
        BigInteger after = serial(cert);
        assertThat(server.tls().reload()).isTrue();
        assertThat(server.tls().reload()).isFalse(); // unchanged files are not taken again

        assertThat(serial(socket(server).getSession())).isEqualTo(after).isNotEqualTo(before);
        SerialCapture newGrpc = new SerialCapture();
        assertThat(nextIds(channel(server, ca, null), newGrpc, 1)).hasSize(1);
        assertThat(newGrpc.serial()).isEqualTo(after);
        assertThat(request(old)).startsWith("HTTP/1.1 200");
        assertThat(nextIds(oldChannel, oldGrpc, 1)).hasSize(1);
        assertThat(oldGrpc.serial()).isEqualTo(before);
        String metrics = get(server, client(ca, null), "/metrics").body();
        assertThat(metrics).contains("idmint_tls_certificate_expiry_timestamp_seconds "
                + (double) (x509(cert).getNotAfter().getTime() / 1000))
                .contains("idmint_tls_reloads_total{result=\"loaded\"} 1.0");
        assertThat(warnings).isEmpty();
    }

    @Test
    void reload_brokenFiles_areRefusedWithOneWarning_andTheOldOnesServe() throws Exception {
        Server server = start();
        BigInteger served = serial(cert);
        TestPki.Issued next = ca.peer("node-2");
        Files.copy(next.certificate(), cert, StandardCopyOption.REPLACE_EXISTING);

        assertThat(server.tls().reload()).isFalse();
        assertThat(server.tls().reload()).isFalse();
        assertThat(warnings).singleElement().asString()
                .startsWith("TLS: refused the changed files, still serving certificate serial "
                        + served.toString(16) + ": tls.key '" + key + "' does not match the "
                        + "certificate CN=node-2 in tls.cert '" + cert + "'");
        assertThat(serial(socket(server).getSession())).isEqualTo(served);

        Files.writeString(cert, "not a certificate");
        assertThat(server.tls().reload()).isFalse();
        assertThat(warnings).hasSize(2).last().asString()
                .contains("tls.cert '" + cert + "' is not a PEM certificate");
        assertThat(serial(socket(server).getSession())).isEqualTo(served);

        install(next); // the key arrives: the pair is good
        assertThat(server.tls().reload()).isTrue();
        assertThat(serial(socket(server).getSession())).isEqualTo(serial(cert));
        assertThat(get(server, client(ca, null), "/metrics").body())
                .contains("idmint_tls_reloads_total{result=\"refused\"} 2.0");
    }

    @Test
    void health_asksATlsNode_overHttps_alsoWithMutualTls() throws Exception {
        Server server = start("tls.client-ca=" + ca.certificate());

        Cli.Result r = Cli.run("health", "--http-port", Integer.toString(server.httpPort()),
                "--tls-cert", cert.toString(), "--tls-key", key.toString(), "--tls-client-ca",
                ca.certificate().toString());

        assertThat(r.err()).isEmpty();
        assertThat(r.out()).startsWith("https://127.0.0.1:" + server.httpPort()
                + "/health/ready 200");
        assertThat(r.exitCode()).isEqualTo(Main.OK);
    }

    @Test
    void health_withoutTheCertificate_againstATlsNode_saysToGiveIt() throws Exception {
        Server server = start();

        Cli.Result r = Cli.run("health", "--http-port", Integer.toString(server.httpPort()));

        assertThat(r.exitCode()).isEqualTo(Main.FAILURE);
        assertThat(r.err()).contains("http://127.0.0.1:" + server.httpPort()
                + "/health/ready: no answer: ")
                .contains("(if the node serves TLS, give its certificate: --tls-cert or "
                        + "IDMINT_TLS_CERT)");
    }

    @Test
    void health_withAChain_trustsOnlyItsOwnLeaf_notAnotherOfTheIntermediate() throws Exception {
        TestPki intermediate = ca.intermediate("test-intermediate");
        TestPki.Issued own = intermediate.peer("own");
        Path ownChain = chain(own, intermediate);
        installChain(intermediate.peer("impostor"), intermediate);
        Server server = start();
        String[] health = {"health", "--http-port", Integer.toString(server.httpPort()),
            "--tls-cert", ownChain.toString(), "--tls-key", own.privateKey().toString()};

        Cli.Result refused = Cli.run(health);
        assertThat(refused.out()).isEmpty();
        assertThat(refused.err()).contains("https://127.0.0.1:" + server.httpPort()
                + "/health/ready: no answer");
        assertThat(refused.exitCode()).isNotEqualTo(Main.OK);

        installChain(own, intermediate);
        assertThat(server.tls().reload()).isTrue();
        Cli.Result served = Cli.run(health);
        assertThat(served.out()).startsWith("https://127.0.0.1:" + server.httpPort()
                + "/health/ready 200");
        assertThat(served.exitCode()).isEqualTo(Main.OK);
    }

    @Test
    void poll_parseThrowingAnyException_isRefusedOnce_andPollingGoesOn() throws Exception {
        TimeSource system = TimeSource.system();
        AtomicBoolean broken = new AtomicBoolean();
        TimeSource clock = new TimeSource() { // parse reads it: a fault no file can cause here
            @Override
            public long currentTimeMillis() {
                if (broken.get()) {
                    throw new IllegalStateException("clock unreadable");
                }
                return system.currentTimeMillis();
            }

            @Override
            public long nanoTime() {
                return system.nanoTime();
            }

            @Override
            public void awaitMillis(long unixMillis) throws InterruptedException {
                system.awaitMillis(unixMillis);
            }
        };
        Metrics metrics = new Metrics(java.util.Map.of());
        open.add(metrics);
        ServerTls tls = ServerTls.open(TestServers.config(dir.resolve("data"),
                "tls.cert=" + cert, "tls.key=" + key), clock, warnings::add, metrics,
                Duration.ofMillis(10));
        open.add(tls);
        String served = tls.material().serial();
        String leaf = Files.readString(cert);

        broken.set(true);
        replace(cert, leaf + "\n"); // the same pair, changed content: parsed, and parse throws
        await("the refusal", () -> !warnings.isEmpty());
        broken.set(false);
        replace(cert, leaf + Files.readString(ca.certificate())); // good: leaf and its CA
        await("the good files taken", () -> tls.material().chain().size() == 2);

        assertThat(tls.material().serial()).isEqualTo(served);
        assertThat(warnings).containsExactly("TLS: refused the changed files, still serving "
                + "certificate serial " + served + ": java.lang.IllegalStateException: clock "
                + "unreadable");
        assertThat(metrics.scrape()).contains("idmint_tls_reloads_total{result=\"refused\"} 1.0",
                "idmint_tls_reloads_total{result=\"loaded\"} 1.0");
    }

    @Test
    void start_badFiles_areRefusedNamingTheKeyAndTheFile() throws Exception {
        Path missing = dir.resolve("missing.crt");
        Path otherKey = otherCa.server("other").privateKey();

        assertThatThrownBy(() -> start("tls.cert=" + missing))
                .hasMessage("tls.cert '" + missing + "' (from test) is not valid: no such file");
        assertThatThrownBy(() -> Server.start(TestServers.config(dir.resolve("data"),
                "tls.cert=" + cert), warnings::add))
                .hasMessage("tls.cert '" + cert + "' is set but tls.key is not: TLS needs the "
                        + "certificate's private key too");
        assertThatThrownBy(() -> Server.start(TestServers.config(dir.resolve("data"),
                "tls.key=" + key), warnings::add))
                .hasMessage("tls.key '" + key + "' is set but tls.cert is not: TLS needs a "
                        + "certificate and its key");
        assertThatThrownBy(() -> start("tls.key=" + otherKey))
                .hasMessage("tls.key '" + otherKey + "' does not match the certificate CN=node "
                        + "in tls.cert '" + cert + "'");
        assertThatThrownBy(() -> start("tls.key=" + cert))
                .hasMessageStartingWith("tls.key '" + cert + "' is not a PEM PKCS#8 private key");
        assertThatThrownBy(() -> start("tls.cert=" + key))
                .hasMessageStartingWith("tls.cert '" + key + "' is not a PEM certificate");
        assertThatThrownBy(() -> start("tls.client-ca=" + key))
                .hasMessageStartingWith("tls.client-ca '" + key + "' is not a PEM certificate");
        assertThatThrownBy(() -> start("static.peers=127.0.0.1:1"))
                .hasMessageStartingWith("static.peers asks the other nodes over plain HTTP, "
                        + "which a node with tls.cert does not answer");
        assertThat(warnings).isEmpty();
    }

    @Test
    void start_notYetValidCertificate_isRefusedNamingTheFileAndItsNotBefore() throws Exception {
        // Regression: taken at start, then every handshake failed. The clock two hours back
        // puts the certificate's notBefore (an hour ago) in the future.
        AtomicLong offset = new AtomicLong(-Duration.ofHours(2).toMillis());
        Metrics metrics = new Metrics(java.util.Map.of());
        open.add(metrics);
        java.time.Instant notBefore = x509(cert).getNotBefore().toInstant();

        assertThatThrownBy(() -> ServerTls.open(TestServers.config(dir.resolve("data"),
                "tls.cert=" + cert, "tls.key=" + key), shifted(offset), warnings::add, metrics,
                BY_HAND)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("tls.cert '" + cert + "': the certificate CN=node is not "
                        + "valid before " + notBefore + " (now is ");
    }

    @Test
    void reload_notYetValidCertificate_isRefusedOnce_thenTakenWhenValid() throws Exception {
        AtomicLong offset = new AtomicLong();
        Metrics metrics = new Metrics(java.util.Map.of());
        open.add(metrics);
        ServerTls tls = ServerTls.open(TestServers.config(dir.resolve("data"),
                "tls.cert=" + cert, "tls.key=" + key), shifted(offset), warnings::add, metrics,
                BY_HAND);
        open.add(tls);
        String served = tls.material().serial();

        install(ca.peer("node-2"));
        offset.set(-Duration.ofHours(2).toMillis());
        assertThat(tls.reload()).isFalse();
        assertThat(tls.reload()).isFalse();
        assertThat(tls.material().serial()).isEqualTo(served);
        assertThat(warnings).singleElement().asString().startsWith("TLS: refused the changed "
                + "files, still serving certificate serial " + served + ": tls.cert '" + cert
                + "': the certificate CN=node-2 is not valid before "
                + x509(cert).getNotBefore().toInstant());
        assertThat(metrics.scrape()).contains("idmint_tls_reloads_total{result=\"refused\"} 1.0");

        offset.set(0); // its notBefore has come: the same files are taken
        assertThat(tls.reload()).isTrue();
        assertThat(tls.material().serial()).isEqualTo(serial(cert).toString(16));
        assertThat(warnings).hasSize(1);
    }

    /** The system clock moved by {@code offset} ms, as the TLS checks read it. */
    private static TimeSource shifted(AtomicLong offset) {
        TimeSource system = TimeSource.system();
        return new TimeSource() {
            @Override
            public long currentTimeMillis() {
                return system.currentTimeMillis() + offset.get();
            }

            @Override
            public long nanoTime() {
                return system.nanoTime();
            }

            @Override
            public void awaitMillis(long unixMillis) throws InterruptedException {
                system.awaitMillis(unixMillis);
            }
        };
    }

    @Test
    void help_serveAndHealth_listTheTlsFlags() {
        for (String command : new String[] {"serve", "health"}) {
            assertThat(Cli.run(command, "--help").out())
                    .contains("--tls-cert", "--tls-key", "--tls-client-ca");
        }
    }

    @Test
    void parse_expiredCertificate_isRefusedNamingTheFile() throws Exception {
        TlsMaterial.Files files = new TlsMaterial.Files(cert, key, null);
        java.time.Instant expiry = x509(cert).getNotAfter().toInstant();

        assertThat(TlsMaterial.parse(files, Files.readAllBytes(cert), Files.readAllBytes(key),
                null, expiry).notAfter()).isEqualTo(expiry);
        assertThatThrownBy(() -> TlsMaterial.parse(files, Files.readAllBytes(cert),
                Files.readAllBytes(key), null, expiry.plusSeconds(1)))
                .hasMessage("tls.cert '" + cert + "': the certificate CN=node expired at "
                        + expiry);
    }

    private Server start(String... settings) {
        java.util.Map<String, String> all = new java.util.LinkedHashMap<>();
        all.put("tls.cert", cert.toString());
        all.put("tls.key", key.toString());
        for (String s : settings) {
            all.put(s.substring(0, s.indexOf('=')), s.substring(s.indexOf('=') + 1));
        }
        Server server = Server.start(TestServers.config(dir.resolve("data"),
                all.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue())
                        .toArray(String[]::new)), warnings::add, BY_HAND);
        open.add(server);
        return server;
    }

    private void install(TestPki.Issued issued) throws IOException {
        install(issued, cert, key);
    }

    /** Puts an issued pair where the server reads its files, each file replaced at once. */
    static void install(TestPki.Issued issued, Path cert, Path key) throws IOException {
        for (Path[] move : new Path[][] {{issued.certificate(), cert}, {issued.privateKey(),
            key}}) {
            Path tmp = move[1].resolveSibling(move[1].getFileName() + ".tmp");
            Files.copy(move[0], tmp, StandardCopyOption.REPLACE_EXISTING);
            Files.move(tmp, move[1], StandardCopyOption.REPLACE_EXISTING,
                    StandardCopyOption.ATOMIC_MOVE);
        }
    }

    /** Puts {@code leaf}, then the intermediate's certificate in tls.cert; its key in tls.key. */
    private void installChain(TestPki.Issued leaf, TestPki intermediate) throws IOException {
        install(new TestPki.Issued(chain(leaf, intermediate), leaf.privateKey()));
    }

    /** A PEM file of {@code leaf}'s certificate followed by the intermediate's. */
    private Path chain(TestPki.Issued leaf, TestPki intermediate) throws IOException {
        Path chain = leaf.certificate().resolveSibling(leaf.certificate().getFileName()
                + ".chain");
        Files.writeString(chain, Files.readString(leaf.certificate())
                + Files.readString(intermediate.certificate()));
        return chain;
    }

    /** Replaces {@code file}'s content at once, as the poller may read it at any time. */
    private static void replace(Path file, String content) throws IOException {
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        Files.writeString(tmp, content);
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING,
                StandardCopyOption.ATOMIC_MOVE);
    }

    /** Polls {@code done} every 10 ms until it holds; fails after 30 s naming {@code what}. */
    private static void await(String what, java.util.function.BooleanSupplier done)
            throws InterruptedException {
        long deadline = TestTime.deadline(Duration.ofSeconds(30));
        while (!done.getAsBoolean()) {
            assertThat(System.nanoTime()).as("waiting for " + what).isLessThan(deadline);
            Thread.sleep(10);
        }
    }

    /** A JDK context trusting {@code trusted}'s CA, presenting {@code own} when not null. */
    static SSLContext context(TestPki trusted, TestPki.Issued own) throws Exception {
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        trust.setCertificateEntry("ca", x509(trusted.certificate()));
        TrustManagerFactory tmf =
                TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        KeyManagerFactory kmf = null;
        if (own != null) {
            TlsMaterial m = TlsMaterial.parse(new TlsMaterial.Files(own.certificate(),
                    own.privateKey(), null), Files.readAllBytes(own.certificate()),
                    Files.readAllBytes(own.privateKey()), null, java.time.Instant.now());
            KeyStore keys = KeyStore.getInstance("PKCS12");
            keys.load(null, null);
            keys.setKeyEntry("own", m.key(), new char[0],
                    m.chain().toArray(new java.security.cert.Certificate[0]));
            kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            kmf.init(keys, new char[0]);
        }
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(kmf == null ? null : kmf.getKeyManagers(), tmf.getTrustManagers(), null);
        return context;
    }

    private static HttpClient client(TestPki trusted, TestPki.Issued own) throws Exception {
        return HttpClient.newBuilder().sslContext(context(trusted, own))
                .connectTimeout(Duration.ofSeconds(10)).build();
    }

    private static HttpResponse<String> get(Server server, HttpClient client, String path)
            throws Exception {
        return client.send(HttpRequest.newBuilder(URI.create("https://127.0.0.1:"
                + server.httpPort() + path)).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** A TLS connection of its own (a new context: no session to resume) to the HTTP port. */
    private SSLSocket socket(Server server) throws Exception {
        SSLSocket socket = (SSLSocket) context(ca, null).getSocketFactory()
                .createSocket("127.0.0.1", server.httpPort());
        open.add(socket);
        socket.setSoTimeout(10_000);
        socket.startHandshake();
        return socket;
    }

    /** One keep-alive request on an open connection; the status line and headers. */
    private static String request(SSLSocket socket) throws IOException {
        OutputStream out = socket.getOutputStream();
        out.write(("GET /health/live HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII));
        out.flush();
        BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(),
                StandardCharsets.US_ASCII));
        String status = in.readLine();
        int length = 0;
        for (String line = in.readLine(); !line.isEmpty(); line = in.readLine()) {
            if (line.toLowerCase(java.util.Locale.ROOT).startsWith("content-length:")) {
                length = Integer.parseInt(line.substring(15).trim());
            }
        }
        for (int i = 0; i < length; i++) {
            in.read();
        }
        return status;
    }

    private ManagedChannel channel(Server server, TestPki trusted, TestPki.Issued own)
            throws IOException {
        SslContextBuilder ssl = GrpcSslContexts.forClient()
                .trustManager(trusted.certificate().toFile());
        if (own != null) {
            ssl.keyManager(own.certificate().toFile(), own.privateKey().toFile());
        }
        ManagedChannel channel = NettyChannelBuilder.forAddress("127.0.0.1", server.grpcPort())
                .sslContext(ssl.build()).build();
        open.add(channel::shutdownNow);
        return channel;
    }

    private static List<Long> nextIds(Channel channel, int count) {
        return nextIds(channel, new SerialCapture(), count);
    }

    private static List<Long> nextIds(Channel channel, SerialCapture capture, int count) {
        return IdServiceGrpc.newBlockingStub(channel).withInterceptors(capture)
                .withDeadlineAfter(10, TimeUnit.SECONDS)
                .nextIds(NextIdsRequest.newBuilder().setCount(count).build()).getIdsList();
    }

    private static void assertUnavailable(Channel channel) {
        assertThatThrownBy(() -> nextIds(channel, 1)).isInstanceOf(StatusRuntimeException.class)
                .satisfies(e -> assertThat(((StatusRuntimeException) e).getStatus().getCode())
                        .isEqualTo(Status.Code.UNAVAILABLE));
    }

    static X509Certificate x509(Path pem) throws Exception {
        try (var in = Files.newInputStream(pem)) {
            return (X509Certificate) CertificateFactory.getInstance("X.509")
                    .generateCertificate(in);
        }
    }

    private static BigInteger serial(Path pem) throws Exception {
        return x509(pem).getSerialNumber();
    }

    private static BigInteger serial(SSLSession session) throws Exception {
        return ((X509Certificate) session.getPeerCertificates()[0]).getSerialNumber();
    }

    /** Records the serial of the server certificate of the connection each call went over. */
    private static final class SerialCapture implements ClientInterceptor {

        private final AtomicReference<SSLSession> session = new AtomicReference<>();

        BigInteger serial() throws Exception {
            return TlsIT.serial(session.get());
        }

        @Override
        public <Q, R> ClientCall<Q, R> interceptCall(MethodDescriptor<Q, R> method,
                CallOptions options, Channel next) {
            return new ForwardingClientCall.SimpleForwardingClientCall<>(
                    next.newCall(method, options)) {
                @Override
                public void start(Listener<R> listener, Metadata headers) {
                    ClientCall<Q, R> call = this;
                    super.start(new ForwardingClientCallListener
                            .SimpleForwardingClientCallListener<>(listener) {
                        @Override
                        public void onHeaders(Metadata h) {
                            session.set(call.getAttributes().get(Grpc.TRANSPORT_ATTR_SSL_SESSION));
                            super.onHeaders(h);
                        }
                    }, headers);
                }
            };
        }
    }
}

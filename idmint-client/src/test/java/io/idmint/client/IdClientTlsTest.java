package io.idmint.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idmint.testkit.TestPki;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * TLS and mTLS against a grpc-java server with certificates of a throw-away CA; a client that
 * trusts another CA, or presents no certificate to a server that wants one, gets no ID;
 * {@code useTls()} trusts the JDK's authorities; a token goes out as {@code Bearer} header,
 * and never in plaintext but to a loopback host. An ID is checked to be one the server issued,
 * not the first: a loaded machine can outlast the 1 s call timeout on a cold TLS handshake, and
 * the client then asks again (IDs of a call it gave up on are lost, never served twice).
 */
class IdClientTlsTest {

    @TempDir
    Path dir;

    @Test
    void nextId_serverCertificateOfTheTrustedCa_servesIds() throws Exception {
        TestPki pki = TestPki.create(dir, "ca");
        try (ScriptedServer s = new ScriptedServer(100, pki, null);
                IdClient ids = IdClient.builder().endpoints(List.of(s.target()))
                        .trustCertificates(pki.certificate()).build()) {
            assertThat(ids.nextId()).isBetween(100L, s.next.get() - 1);
        }
    }

    @Test
    void nextId_serverCertificateOfAnotherCa_refused() throws Exception {
        TestPki pki = TestPki.create(dir.resolve("real"), "ca");
        TestPki other = TestPki.create(dir.resolve("other"), "other");
        try (ScriptedServer s = new ScriptedServer(100, pki, null);
                IdClient ids = IdClient.builder().endpoints(List.of(s.target()))
                        .trustCertificates(other.certificate())
                        .deadline(Duration.ofSeconds(2)).build()) {
            assertThatThrownBy(ids::nextId).isInstanceOfSatisfying(
                    IdServiceUnavailableException.class,
                    e -> assertThat(e.failures().get(s.target())).startsWith("UNAVAILABLE"));
            assertThat(s.callNanos).as("no call reached the server").isEmpty();
        }
    }

    @Test
    void nextId_mutualTls_servesOnlyAClientWithACertificate() throws Exception {
        TestPki pki = TestPki.create(dir, "ca");
        TestPki.Issued client = pki.client("app");
        try (ScriptedServer s = new ScriptedServer(100, pki, pki.certificate())) {
            try (IdClient ids = IdClient.builder().endpoints(List.of(s.target()))
                    .trustCertificates(pki.certificate())
                    .clientCertificate(client.certificate(), client.privateKey()).build()) {
                assertThat(ids.nextId()).isBetween(100L, s.next.get() - 1);
            }
            try (IdClient anonymous = IdClient.builder().endpoints(List.of(s.target()))
                    .trustCertificates(pki.certificate()).deadline(Duration.ofSeconds(2))
                    .build()) {
                assertThatThrownBy(anonymous::nextId)
                        .isInstanceOf(IdServiceUnavailableException.class);
            }
        }
    }

    @Test
    void useTls_serverCertificateOfACaTheJdkTrusts_servesIds() throws Exception {
        TestPki pki = TestPki.create(dir, "ca");
        KeyStore store = KeyStore.getInstance("PKCS12");
        store.load(null, null);
        try (InputStream in = Files.newInputStream(pki.certificate())) {
            store.setCertificateEntry("ca",
                    CertificateFactory.getInstance("X.509").generateCertificate(in));
        }
        Path trustStore = dir.resolve("truststore.p12");
        try (OutputStream out = Files.newOutputStream(trustStore)) {
            store.store(out, "changeit".toCharArray());
        }
        // The JDK's default trust, which useTls() relies on, read from these properties.
        Map<String, String> was = new HashMap<>();
        Map<String, String> set = Map.of("javax.net.ssl.trustStore", trustStore.toString(),
                "javax.net.ssl.trustStoreType", "PKCS12",
                "javax.net.ssl.trustStorePassword", "changeit");
        set.forEach((k, v) -> was.put(k, System.setProperty(k, v)));
        try (ScriptedServer s = new ScriptedServer(100, pki, null);
                IdClient ids = IdClient.builder().endpoints(List.of(s.target())).useTls()
                        .token("secret").build()) {
            assertThat(ids.nextId()).isBetween(100L, s.next.get() - 1);
            assertThat(s.authorizations).as("the authorization header of each call")
                    .isNotEmpty().containsOnly("Bearer secret");
        } finally {
            was.forEach((k, v) -> {
                if (v == null) {
                    System.clearProperty(k);
                } else {
                    System.setProperty(k, v);
                }
            });
        }
    }

    @Test
    void useTls_plaintextServer_refused() throws Exception {
        try (ScriptedServer s = new ScriptedServer(100);
                IdClient ids = IdClient.builder().endpoints(List.of(s.target())).useTls()
                        .deadline(Duration.ofSeconds(2)).build()) {
            assertThatThrownBy(ids::nextId).isInstanceOf(IdServiceUnavailableException.class);
            assertThat(s.callNanos).as("no call reached the server").isEmpty();
        }
    }

    @Test
    void build_tokenOverPlaintextToAnotherHost_refusedNamingTheTarget() {
        assertThatThrownBy(() -> IdClient.builder()
                .endpoints(List.of("127.0.0.1:9090", "dns:///ids.internal:9090"))
                .token("secret").build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("a token would travel in plaintext to dns:///ids.internal:9090: "
                        + "call useTls() or trustCertificates(...)");
        for (String local : List.of("127.0.0.1:9090", "localhost:9090", "[::1]:9090",
                "dns:///localhost:9090")) {
            IdClient.builder().endpoints(List.of(local)).token("secret").build().close();
        }
        IdClient.builder().endpoints(List.of("ids.internal:9090")).token("secret").useTls()
                .build().close();
    }
}

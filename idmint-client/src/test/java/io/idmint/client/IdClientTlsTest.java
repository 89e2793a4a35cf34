package io.idmint.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idmint.testkit.TestPki;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * TLS and mTLS against a grpc-java server with certificates of a throw-away CA; a client that
 * trusts another CA, or presents no certificate to a server that wants one, gets no ID.
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
            assertThat(ids.nextId()).isEqualTo(100);
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
                assertThat(ids.nextId()).isEqualTo(100);
            }
            try (IdClient anonymous = IdClient.builder().endpoints(List.of(s.target()))
                    .trustCertificates(pki.certificate()).deadline(Duration.ofSeconds(2))
                    .build()) {
                assertThatThrownBy(anonymous::nextId)
                        .isInstanceOf(IdServiceUnavailableException.class);
            }
        }
    }
}

package io.idmint.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyFactory;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TestPkiTest {

    @TempDir
    Path dir;

    @Test
    void server_isSignedByItsAuthorityAndNamesLoopback() throws Exception {
        TestPki ca = TestPki.create(dir, "ca");
        TestPki.Issued server = ca.server("server");

        X509Certificate root = read(ca.certificate());
        X509Certificate leaf = read(server.certificate());
        leaf.verify(root.getPublicKey());
        leaf.checkValidity();
        assertThat(leaf.getSubjectAlternativeNames()).extracting(n -> (Object) n.get(1))
                .contains((Object) "127.0.0.1", "localhost");
        assertThat(leaf.getExtendedKeyUsage()).containsExactly("1.3.6.1.5.5.7.3.1");
        assertThat(root.getBasicConstraints()).isGreaterThanOrEqualTo(0);
        assertThat(KeyFactory.getInstance("EC").generatePrivate(new PKCS8EncodedKeySpec(
                der(server.privateKey(), "PRIVATE KEY")))).isNotNull();
    }

    @Test
    void client_fromAnotherAuthority_doesNotVerify() throws Exception {
        TestPki ca = TestPki.create(dir, "ca");
        TestPki other = TestPki.create(dir, "other");
        X509Certificate client = read(other.client("mallory").certificate());

        assertThat(client.getExtendedKeyUsage()).containsExactly("1.3.6.1.5.5.7.3.2");
        assertThatThrownBy(() -> client.verify(read(ca.certificate()).getPublicKey()))
                .isInstanceOf(java.security.SignatureException.class);
    }

    private static X509Certificate read(Path pem) throws Exception {
        try (InputStream in = Files.newInputStream(pem)) {
            return (X509Certificate) CertificateFactory.getInstance("X.509")
                    .generateCertificate(in);
        }
    }

    private static byte[] der(Path pem, String type) throws Exception {
        String text = Files.readString(pem);
        assertThat(text).startsWith("-----BEGIN " + type + "-----");
        return Base64.getMimeDecoder().decode(text.replaceAll("-----[A-Z ]+-----", ""));
    }
}

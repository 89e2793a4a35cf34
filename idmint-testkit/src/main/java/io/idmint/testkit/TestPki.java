package io.idmint.testkit;

import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.concurrent.atomic.AtomicLong;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.bouncycastle.util.io.pem.PemObject;

/**
 * A throw-away certificate authority for TLS tests: it signs server certificates for loopback
 * ({@code 127.0.0.1}, {@code ::1}, {@code localhost}) and client certificates, and writes each
 * as PEM files (certificate, PKCS#8 private key) that etcd, ZooKeeper, Netty and grpc-java all
 * read. Keys are ECDSA P-256, certificates SHA-256, valid from an hour ago for a day.
 *
 * <pre>{@code
 * TestPki ca = TestPki.create(dir, "test-ca");
 * TestPki.Issued server = ca.server("server");
 * TestPki.Issued client = ca.client("alice");
 * // ca.certificate(), server.certificate(), server.privateKey() are PEM files under dir
 * }</pre>
 */
public final class TestPki {

    private static final AtomicLong SERIAL = new AtomicLong(System.nanoTime());

    private final Path dir;
    private final String name;
    private final KeyPair keys;
    private final X509Certificate certificate;
    private final Path certificateFile;

    /** The PEM files of one issued certificate and its key. */
    public record Issued(Path certificate, Path privateKey) {}

    private TestPki(Path dir, String name, KeyPair keys, X509Certificate certificate)
            throws IOException, GeneralSecurityException {
        this.dir = dir;
        this.name = name;
        this.keys = keys;
        this.certificate = certificate;
        this.certificateFile = dir.resolve(name + ".crt");
        writePem(certificateFile, "CERTIFICATE", certificate.getEncoded());
    }

    /** A new self-signed authority named {@code name}; its PEM files go into {@code dir}. */
    public static TestPki create(Path dir, String name) {
        try {
            Files.createDirectories(dir);
            return authority(dir, name, null);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * An intermediate authority named {@code name}, signed by this one, its PEM files in the same
     * directory. A server serves its leaf and then {@link #certificate()} of the intermediate.
     */
    public TestPki intermediate(String name) {
        return authority(dir, name, this);
    }

    /** An authority signed by {@code parent}, or by itself when that is null. */
    private static TestPki authority(Path dir, String name, TestPki parent) {
        try {
            KeyPair keys = newKeys();
            X500Name subject = new X500Name("CN=" + name);
            JcaX509ExtensionUtils ext = new JcaX509ExtensionUtils();
            X509v3CertificateBuilder builder = builder(
                    parent == null ? subject : new X500Name("CN=" + parent.name), subject, keys)
                    .addExtension(Extension.basicConstraints, true, new BasicConstraints(true))
                    .addExtension(Extension.keyUsage, true,
                            new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign))
                    .addExtension(Extension.subjectKeyIdentifier, false,
                            ext.createSubjectKeyIdentifier(keys.getPublic()));
            if (parent != null) {
                builder.addExtension(Extension.authorityKeyIdentifier, false,
                        ext.createAuthorityKeyIdentifier(parent.certificate));
            }
            return new TestPki(dir, name, keys, sign(builder,
                    (parent == null ? keys : parent.keys).getPrivate()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("cannot create test CA " + name, e);
        }
    }

    /** This authority's certificate (PEM), to trust. */
    public Path certificate() {
        return certificateFile;
    }

    /** A server certificate for loopback, signed by this authority, as {@code name.crt/.key}. */
    public Issued server(String name) {
        return issue(name, KeyPurposeId.id_kp_serverAuth);
    }

    /** A client certificate with common name {@code name}, as {@code name.crt/.key}. */
    public Issued client(String name) {
        return issue(name, KeyPurposeId.id_kp_clientAuth);
    }

    /**
     * A certificate good for both ends of a connection (etcd and ZooKeeper members use one
     * certificate to serve clients and to dial their peers).
     */
    public Issued peer(String name) {
        return issue(name, KeyPurposeId.id_kp_serverAuth, KeyPurposeId.id_kp_clientAuth);
    }

    private Issued issue(String subjectName, KeyPurposeId... purposes) {
        try {
            KeyPair subjectKeys = newKeys();
            X500Name issuer = new X500Name("CN=" + name);
            JcaX509ExtensionUtils ext = new JcaX509ExtensionUtils();
            X509v3CertificateBuilder builder = builder(issuer, new X500Name("CN=" + subjectName),
                    subjectKeys)
                    .addExtension(Extension.basicConstraints, true, new BasicConstraints(false))
                    .addExtension(Extension.keyUsage, true, new KeyUsage(
                            KeyUsage.digitalSignature | KeyUsage.keyAgreement))
                    .addExtension(Extension.extendedKeyUsage, false,
                            new ExtendedKeyUsage(purposes))
                    .addExtension(Extension.authorityKeyIdentifier, false,
                            ext.createAuthorityKeyIdentifier(certificate))
                    .addExtension(Extension.subjectAlternativeName, false, new GeneralNames(
                            new GeneralName[] {
                                new GeneralName(GeneralName.iPAddress, "127.0.0.1"),
                                new GeneralName(GeneralName.iPAddress, "::1"),
                                new GeneralName(GeneralName.dNSName, "localhost")}));
            X509Certificate issued = sign(builder, keys.getPrivate());
            Path cert = dir.resolve(subjectName + ".crt");
            Path key = dir.resolve(subjectName + ".key");
            writePem(cert, "CERTIFICATE", issued.getEncoded());
            writePem(key, "PRIVATE KEY", subjectKeys.getPrivate().getEncoded());
            return new Issued(cert, key);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("cannot issue test certificate " + subjectName, e);
        }
    }

    private static KeyPair newKeys() throws GeneralSecurityException {
        KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
        generator.initialize(new ECGenParameterSpec("secp256r1"));
        return generator.generateKeyPair();
    }

    private static X509v3CertificateBuilder builder(X500Name issuer, X500Name subject,
            KeyPair subjectKeys) {
        Instant now = Instant.now();
        return new JcaX509v3CertificateBuilder(issuer,
                BigInteger.valueOf(SERIAL.incrementAndGet()),
                Date.from(now.minus(Duration.ofHours(1))), Date.from(now.plus(Duration.ofDays(1))),
                subject, subjectKeys.getPublic());
    }

    private static X509Certificate sign(X509v3CertificateBuilder builder, PrivateKey signer)
            throws GeneralSecurityException {
        try {
            return new JcaX509CertificateConverter().getCertificate(builder.build(
                    new JcaContentSignerBuilder("SHA256withECDSA").build(signer)));
        } catch (OperatorCreationException e) {
            throw new GeneralSecurityException(e);
        }
    }

    private static void writePem(Path file, String type, byte[] der) throws IOException {
        StringWriter text = new StringWriter();
        try (JcaPEMWriter pem = new JcaPEMWriter(text)) {
            pem.writeObject(new PemObject(type, der));
        }
        Files.writeString(file, text.toString());
    }
}

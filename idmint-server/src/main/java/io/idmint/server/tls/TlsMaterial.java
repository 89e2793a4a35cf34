package io.idmint.server.tls;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.cert.Certificate;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.time.Instant;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * One generation of TLS material read from PEM: the certificate chain ({@code tls.cert}), its
 * PKCS#8 private key ({@code tls.key}) and, for mutual TLS, the authorities client
 * certificates must chain to ({@code tls.client-ca}). Checked as a whole, so a node never serves
 * a key that does not match its certificate, or a certificate that has expired or is not valid
 * yet (see
 * docs/http-grpc.md, "TLS").
 *
 * @param chain the served chain, leaf first
 * @param key the leaf's private key
 * @param clientTrust what client certificates must chain to; null: no client certificates
 */
public record TlsMaterial(List<X509Certificate> chain, PrivateKey key,
        X509ExtendedTrustManager clientTrust) {

    private static final String BEGIN_KEY = "-----BEGIN PRIVATE KEY-----";
    private static final String END_KEY = "-----END PRIVATE KEY-----";

    /** The PEM files, by the key that names them; {@code clientCa} may be null. */
    public record Files(Path cert, Path key, Path clientCa) {

        /**
         * The files of {@code tls.cert}, {@code tls.key} and {@code tls.client-ca}, each null
         * when not set.
         *
         * @return null when none is set
         * @throws IllegalArgumentException when one is set without the certificate or its key
         */
        public static Files of(Path cert, Path key, Path clientCa) {
            if (cert == null && key == null && clientCa == null) {
                return null;
            }
            if (cert == null) {
                throw new IllegalArgumentException((key != null ? "tls.key '" + key + "'"
                        : "tls.client-ca '" + clientCa + "'")
                        + " is set but tls.cert is not: TLS needs a certificate and its key");
            }
            if (key == null) {
                throw new IllegalArgumentException("tls.cert '" + cert + "' is set but tls.key "
                        + "is not: TLS needs the certificate's private key too");
            }
            return new Files(cert, key, clientCa);
        }

        /**
         * The contents of the files now, {@code clientCa}'s null when there is none.
         *
         * @throws IllegalArgumentException naming the key and the file that cannot be read
         */
        byte[][] read() {
            return new byte[][] {read("tls.cert", cert), read("tls.key", key),
                clientCa == null ? null : read("tls.client-ca", clientCa)};
        }

        private static byte[] read(String name, Path file) {
            try {
                return java.nio.file.Files.readAllBytes(file);
            } catch (IOException e) {
                throw new IllegalArgumentException(name + " '" + file + "' cannot be read: " + e,
                        e);
            }
        }
    }

    /**
     * Reads the files now, and parses and checks them as {@link #parse} does.
     *
     * @throws IllegalArgumentException naming the key and the file that is wrong and why
     */
    public static TlsMaterial read(Files files, Instant now) {
        byte[][] contents = files.read();
        return parse(files, contents[0], contents[1], contents[2], now);
    }

    /**
     * Parses and checks the contents of the three files.
     *
     * @param cert the bytes of {@code files.cert()}; likewise {@code key} and {@code clientCa}
     *     (null when there is none)
     * @param now the time the certificate must be valid at (after notBefore, before notAfter)
     * @throws IllegalArgumentException naming the key and the file that is wrong and why
     */
    public static TlsMaterial parse(Files files, byte[] cert, byte[] key, byte[] clientCa,
            Instant now) {
        List<X509Certificate> chain = certificates(cert, "tls.cert", files.cert());
        X509Certificate leaf = chain.get(0);
        if (leaf.getNotAfter().toInstant().isBefore(now)) {
            throw new IllegalArgumentException("tls.cert '" + files.cert() + "': the certificate "
                    + subject(leaf) + " expired at " + leaf.getNotAfter().toInstant());
        }
        Instant notBefore = leaf.getNotBefore().toInstant();
        if (notBefore.isAfter(now)) {
            throw new NotYetValid("tls.cert '" + files.cert() + "': the certificate "
                    + subject(leaf) + " is not valid before " + notBefore + " (now is " + now
                    + "); every handshake would fail until then", notBefore);
        }
        PrivateKey privateKey = privateKey(key, leaf, files);
        X509ExtendedTrustManager trust = clientCa == null ? null
                : trust(certificates(clientCa, "tls.client-ca", files.clientCa()), files);
        return new TlsMaterial(List.copyOf(chain), privateKey, trust);
    }

    /** A certificate whose notBefore is still to come: refused, and good from then on. */
    static final class NotYetValid extends IllegalArgumentException {
        private static final long serialVersionUID = 1L;
        private final transient Instant notBefore;

        NotYetValid(String message, Instant notBefore) {
            super(message);
            this.notBefore = notBefore;
        }

        Instant notBefore() {
            return notBefore;
        }
    }

    /** The served certificate. */
    X509Certificate leaf() {
        return chain.get(0);
    }

    /** The served certificate's serial number, in hex, for the reload log line. */
    public String serial() {
        return leaf().getSerialNumber().toString(16);
    }

    /** When the served certificate expires. */
    public Instant notAfter() {
        return leaf().getNotAfter().toInstant();
    }

    /** Who the served certificate is for, for the log line. */
    static String subject(X509Certificate c) {
        return c.getSubjectX500Principal().getName();
    }

    private static List<X509Certificate> certificates(byte[] pem, String name, Path file) {
        try {
            List<X509Certificate> certs = CertificateFactory.getInstance("X.509")
                    .generateCertificates(new ByteArrayInputStream(pem)).stream()
                    .map(X509Certificate.class::cast).toList();
            if (certs.isEmpty()) {
                throw new CertificateException("no certificate in it");
            }
            return certs;
        } catch (CertificateException e) {
            throw new IllegalArgumentException(name + " '" + file + "' is not a PEM certificate"
                    + " (chain): " + e.getMessage(), e);
        }
    }

    private static PrivateKey privateKey(byte[] pem, X509Certificate leaf, Files files) {
        String text = new String(pem, StandardCharsets.US_ASCII);
        int begin = text.indexOf(BEGIN_KEY);
        int end = text.indexOf(END_KEY);
        if (begin < 0 || end < begin) {
            throw new IllegalArgumentException("tls.key '" + files.key() + "' is not a PEM "
                    + "PKCS#8 private key (" + BEGIN_KEY + "); convert one with "
                    + "openssl pkcs8 -topk8 -nocrypt");
        }
        String algorithm = leaf.getPublicKey().getAlgorithm();
        PrivateKey key;
        try {
            byte[] der = Base64.getMimeDecoder()
                    .decode(text.substring(begin + BEGIN_KEY.length(), end));
            key = KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(der));
        } catch (IllegalArgumentException | GeneralSecurityException e) {
            throw new IllegalArgumentException("tls.key '" + files.key() + "' is not a "
                    + algorithm + " private key for the certificate in tls.cert '"
                    + files.cert() + "': " + e.getMessage(), e);
        }
        if (!matches(key, leaf)) {
            throw new IllegalArgumentException("tls.key '" + files.key() + "' does not match "
                    + "the certificate " + subject(leaf) + " in tls.cert '" + files.cert() + "'");
        }
        return key;
    }

    /**
     * Whether {@code key} signs what the certificate's public key verifies: EC and RSA keys, and
     * EdDSA keys, whose signature algorithm is named as the key's.
     */
    private static boolean matches(PrivateKey key, X509Certificate cert) {
        String algorithm = switch (cert.getPublicKey().getAlgorithm()) {
            case "EC" -> "SHA256withECDSA";
            case "RSA" -> "SHA256withRSA";
            default -> cert.getPublicKey().getAlgorithm();
        };
        byte[] probe = "idmint tls key check".getBytes(StandardCharsets.US_ASCII);
        try {
            Signature sign = Signature.getInstance(algorithm);
            sign.initSign(key);
            sign.update(probe);
            byte[] signature = sign.sign();
            Signature verify = Signature.getInstance(algorithm);
            verify.initVerify(cert.getPublicKey());
            verify.update(probe);
            return verify.verify(signature);
        } catch (GeneralSecurityException e) {
            return false;
        }
    }

    private static X509ExtendedTrustManager trust(List<X509Certificate> authorities,
            Files files) {
        try {
            return trusting(authorities);
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException("tls.client-ca '" + files.clientCa() + "' cannot "
                    + "be trusted: " + e.getMessage(), e);
        }
    }

    /** A PKIX trust manager with {@code anchors} as its only trusted certificates. */
    private static X509ExtendedTrustManager trusting(List<X509Certificate> anchors)
            throws GeneralSecurityException {
        KeyStore store = emptyStore();
        for (int i = 0; i < anchors.size(); i++) {
            store.setCertificateEntry("anchor-" + i, anchors.get(i));
        }
        TrustManagerFactory factory =
                TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        factory.init(store);
        return Arrays.stream(factory.getTrustManagers())
                .filter(X509ExtendedTrustManager.class::isInstance)
                .map(X509ExtendedTrustManager.class::cast).findFirst().orElseThrow();
    }

    /**
     * A client's TLS context that trusts this chain's leaf (the node's own certificate) and
     * nothing else, not even the intermediates that signed it, and, when {@code present}, offers
     * the chain and key as its client certificate: how {@code idmint health} asks its own node.
     */
    public SSLContext clientOfSelf(boolean present) {
        try {
            KeyManager[] keys = null;
            if (present) {
                char[] none = new char[0];
                KeyStore own = emptyStore();
                own.setKeyEntry("node", key, none, chain.toArray(new Certificate[0]));
                KeyManagerFactory factory =
                        KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
                factory.init(own, none);
                keys = factory.getKeyManagers();
            }
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(keys, new TrustManager[] {trusting(List.of(leaf()))}, null);
            return context;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("cannot set up TLS for " + subject(leaf()) + ": " + e,
                    e);
        }
    }

    private static KeyStore emptyStore() throws GeneralSecurityException {
        KeyStore store = KeyStore.getInstance("PKCS12");
        try {
            store.load(null, null);
        } catch (java.io.IOException e) {
            throw new GeneralSecurityException(e); // not thrown without a stream
        }
        return store;
    }
}

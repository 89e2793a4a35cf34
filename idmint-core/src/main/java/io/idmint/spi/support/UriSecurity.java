package io.idmint.spi.support;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * The TLS and user options a backend URI shares with others: {@code ca-file} (PEM certificates
 * that sign the servers' certificates; default the JVM's trusted authorities), {@code cert-file}
 * and {@code key-file} (a PEM client certificate and its PKCS#8 PEM key), and {@code user} with
 * {@code password-file} or {@code password-env} (see {@link Passwords}).
 *
 * @param tls whether the servers are reached over TLS
 * @param caFile the trusted authorities, or null for the JVM's
 * @param certFile the client certificate, or null for none
 * @param keyFile the client certificate's private key, or null for none
 * @param user the user, or null for none
 * @param passwordFile the file holding the user's password, or null
 * @param passwordEnv the environment variable holding the user's password, or null
 */
public record UriSecurity(boolean tls, Path caFile, Path certFile, Path keyFile, String user,
        Path passwordFile, String passwordEnv) {

    /** The option names this record reads. */
    public static final List<String> OPTIONS = List.of("ca-file", "cert-file", "key-file",
            "user", "password-file", "password-env");

    private static final Pattern USER = Pattern.compile("[A-Za-z0-9._@-]+");

    /** The options as {@link UriOptions#parse} returned them. */
    public static UriSecurity of(boolean tls, Map<String, String> options) {
        return new UriSecurity(tls, path(options, "ca-file"), path(options, "cert-file"),
                path(options, "key-file"), options.get("user"), path(options, "password-file"),
                options.get("password-env"));
    }

    /** Whether a password is named, by file or environment variable. */
    public boolean hasPassword() {
        return passwordFile != null || passwordEnv != null;
    }

    /**
     * Checks the options against each other: files only with TLS, a certificate with its key,
     * one source of the password, a user name of {@code A-Z a-z 0-9 . _ @ -} and an environment
     * variable's name. Whether a user needs a password is the backend's to check.
     *
     * @param tlsScheme the scheme that turns TLS on, for the message: {@code etcds}
     * @param bad makes the exception for what is wrong, e.g. by prefixing the URI
     * @throws IllegalArgumentException from {@code bad}
     */
    public void check(String tlsScheme, Function<String, IllegalArgumentException> bad) {
        if (!tls && (caFile != null || certFile != null || keyFile != null)) {
            throw bad.apply("ca-file, cert-file and key-file need TLS; write " + tlsScheme
                    + "://");
        }
        if ((certFile == null) != (keyFile == null)) {
            throw bad.apply("a client certificate needs both cert-file and key-file");
        }
        if (passwordFile != null && passwordEnv != null) {
            throw bad.apply("password-file and password-env are both given; keep one");
        }
        if (user != null && !USER.matcher(user).matches()) {
            throw bad.apply("bad user '" + user + "'; use A-Z a-z 0-9 . _ @ -");
        }
        if (passwordEnv != null && !Passwords.isEnvName(passwordEnv)) {
            throw bad.apply("password-env '" + passwordEnv + "' is not an environment variable "
                    + "name");
        }
    }

    /**
     * Checks that the PEM files named exist and can be read, before a client is built with them.
     *
     * @param what the backend, for messages (e.g. {@code etcd etcds://h:2379/idmint})
     * @throws IllegalArgumentException naming the option and the file
     */
    public void checkFiles(String what) {
        readable(what, "ca-file", caFile);
        readable(what, "cert-file", certFile);
        readable(what, "key-file", keyFile);
    }

    /**
     * The user's password, read now from its file or environment variable.
     *
     * @param what the backend, for messages
     * @throws IllegalArgumentException when it cannot be read or is empty
     */
    public byte[] password(String what) {
        return Passwords.read(what, passwordFile, passwordEnv);
    }

    private static void readable(String what, String option, Path file) {
        if (file != null && (!Files.isRegularFile(file) || !Files.isReadable(file))) {
            throw new IllegalArgumentException(what + ": " + option + " '" + file
                    + "' does not exist or is not a readable file");
        }
    }

    private static Path path(Map<String, String> options, String name) {
        String p = options.get(name);
        return p == null ? null : Path.of(p);
    }
}

package io.idmint.spi.support;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Pattern;

/**
 * Passwords of backend URIs, which never hold one themselves (URIs are logged and shown): a URI
 * names a file ({@code password-file=}) or an environment variable ({@code password-env=}) and
 * the backend reads it when it opens. One reader, so every backend treats them the same way:
 * surrounding blanks and the final newline are dropped, and an empty password is an error.
 */
public final class Passwords {

    private static final Pattern ENV = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

    private Passwords() {
    }

    /** Whether {@code name} can be an environment variable's name. */
    public static boolean isEnvName(String name) {
        return name != null && ENV.matcher(name).matches();
    }

    /**
     * Reads a password from {@code file}, or when that is null from the environment variable
     * {@code env}.
     *
     * @param what the backend, for messages (e.g. {@code etcd etcds://h:2379/idmint})
     * @throws IllegalArgumentException when the file cannot be read, the variable is not set or
     *     the password is empty; the message names the file or variable, never the password
     */
    public static byte[] read(String what, Path file, String env) {
        String text;
        String from;
        if (file != null) {
            from = "password-file '" + file + "'";
            try {
                text = Files.readString(file, StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new IllegalArgumentException(what + ": cannot read " + from + ": " + e, e);
            }
        } else {
            from = "environment variable " + env + " (password-env)";
            text = System.getenv(env);
            if (text == null) {
                throw new IllegalArgumentException(what + ": " + from + " is not set");
            }
        }
        text = text.strip();
        if (text.isEmpty()) {
            throw new IllegalArgumentException(what + ": " + from + " is empty");
        }
        return text.getBytes(StandardCharsets.UTF_8);
    }
}

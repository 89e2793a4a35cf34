package io.idmint.server.ops;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Optional;

/**
 * The HTTP address a running {@code serve} answers on, kept in its data directory
 * ({@value #FILE}) while it runs: a command on the same data directory that must send the user
 * to the server (the segment CLI, which cannot open the embedded store the server holds) names
 * the port the server really listens on, not the one in its own configuration. A server killed
 * with {@code kill -9} leaves the file; the next server on the directory writes it again.
 */
public final class ServeAddress implements AutoCloseable {

    /** The file's name in the data directory. */
    public static final String FILE = "serve.url";

    private final Path file;
    private final String url;

    private ServeAddress(Path file, String url) {
        this.file = file;
        this.url = url;
    }

    /**
     * Writes {@code url} to the data directory (created if missing), replacing what a server
     * before left there.
     *
     * @throws IllegalStateException naming the file when it cannot be written
     */
    public static ServeAddress write(Path dataDir, String url) {
        Path file = dataDir.resolve(FILE);
        Path tmp = dataDir.resolve(FILE + ".tmp");
        try {
            Files.createDirectories(dataDir);
            Files.writeString(tmp, url + "\n", StandardCharsets.UTF_8);
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING,
                    StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new IllegalStateException("cannot write " + file + " (the address of this "
                    + "server, for commands on its data directory): " + e, e);
        }
        return new ServeAddress(file, url);
    }

    /** The address a server on {@code dataDir} wrote, if it left one. */
    public static Optional<String> read(Path dataDir) {
        try {
            String text = Files.readString(dataDir.resolve(FILE), StandardCharsets.UTF_8).trim();
            return text.startsWith("http://") || text.startsWith("https://") ? Optional.of(text)
                    : Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /** Deletes the file, unless another server on the directory has written its own since. */
    @Override
    public void close() {
        if (read(file.getParent()).filter(url::equals).isPresent()) {
            try {
                Files.deleteIfExists(file);
            } catch (IOException e) {
                // Left behind as after a kill -9: the next server writes it again.
            }
        }
    }
}

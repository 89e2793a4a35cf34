package io.idmint;

import io.idmint.spi.ClaimRequest;
import io.idmint.spi.RegistryException;
import io.idmint.spi.RegistryException.Kind;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.zip.CRC32;

/**
 * The {@link StaticRegistry}'s files in a namespace directory (docs/registries.md, "The
 * static registry"): {@code layout} and {@code datacenter-<dc>.name}, written once; per worker
 * a state file with its HWM and generation under a CRC, always replaced atomically (write, fsync,
 * rename, fsync the directory); and the first byte of its lock file, which says whether a state
 * file was ever written.
 */
final class StaticFiles {

    private static final String STATE_HEADER =
            "# idmint worker state: written atomically by idmint; do not edit";

    private static final Set<StandardOpenOption> TMP_OPTIONS = Set.of(
            StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);

    /** A worker's state file: its HWM, and its generation, which is the fencing token. */
    record State(long hwmMillis, long generation) {
    }

    private StaticFiles() {
    }

    static void checkLayout(Path dir, String layoutSpec) throws IOException,
            RegistryException {
        Path file = dir.resolve("layout");
        if (!Files.exists(file)) {
            atomicWrite(dir, file, layoutSpec + "\n");
        }
        String stored = Files.readString(file, StandardCharsets.UTF_8).trim();
        if (!stored.equals(layoutSpec)) {
            throw new RegistryException(Kind.CONFLICT, "data directory " + dir + " was set up for "
                    + "layout '" + stored + "', not '" + layoutSpec + "'; a deployment's layout "
                    + "cannot change (use another data directory for another layout)");
        }
    }

    static void checkDatacenterName(Path dir, ClaimRequest request)
            throws IOException, RegistryException {
        if (request.datacenterName().isEmpty()) {
            return;
        }
        Path file = dir.resolve("datacenter-" + request.datacenterId() + ".name");
        if (!Files.exists(file)) {
            atomicWrite(dir, file, request.datacenterName() + "\n");
        }
        String stored = Files.readString(file, StandardCharsets.UTF_8).trim();
        if (!stored.equals(request.datacenterName())) {
            throw new RegistryException(Kind.CONFLICT, "datacenter " + request.datacenterId()
                    + " is '" + stored + "' in " + dir + ", not '"
                    + request.datacenterName() + "'");
        }
    }

    /** The worker's state, or null when it has no state file. */
    static State read(Path dir, int dc, int worker, String layoutSpec)
            throws IOException, RegistryException {
        Path file = dir.resolve(name(dc, worker, "state"));
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            return null;
        }
        int crcAt = text.lastIndexOf("crc32=");
        Map<String, String> values = new LinkedHashMap<>();
        if (crcAt > 0) {
            for (String line : text.substring(0, crcAt).split("\n")) {
                int eq = line.indexOf('=');
                if (eq > 0 && !line.startsWith("#")) {
                    values.put(line.substring(0, eq), line.substring(eq + 1));
                }
            }
        }
        try {
            String stored = crcAt < 0 ? "" : text.substring(crcAt + 6).trim();
            if (crcAt < 0 || !crc(text.substring(0, crcAt)).equals(stored)) {
                throw new IllegalArgumentException("checksum does not match");
            }
            if (!layoutSpec.equals(values.get("layout"))
                    || Integer.parseInt(values.get("datacenter")) != dc
                    || Integer.parseInt(values.get("worker")) != worker) {
                throw new IllegalArgumentException("it belongs to another layout or worker");
            }
            return new State(Long.parseLong(values.get("hwm")),
                    Long.parseLong(values.get("generation")));
        } catch (IllegalArgumentException | NullPointerException e) {
            throw new RegistryException(Kind.CORRUPT, "state file " + file + " is corrupt ("
                    + e.getMessage() + "); refusing to guess its high-water mark. Restore it from "
                    + "a backup, or write it by hand with an HWM above every ID it issued", e);
        }
    }

    static void writeState(Path dir, int dc, int worker, String layoutSpec, long hwm,
            long generation) throws IOException {
        String body = STATE_HEADER + "\nversion=1\nlayout=" + layoutSpec + "\ndatacenter=" + dc
                + "\nworker=" + worker + "\nhwm=" + hwm + "\ngeneration=" + generation + "\n";
        atomicWrite(dir, dir.resolve(name(dc, worker, "state")), body + "crc32=" + crc(body)
                + "\n");
    }

    /**
     * Write to a temporary file, fsync it, rename it over the target, fsync the directory. The
     * temporary file has a random 64-bit name, created exclusively and owner-only, as
     * {@link Files#createTempFile} makes one; that one seeds a {@link java.security.SecureRandom}
     * for the name, a tenth of the start-up of {@code idmint next} (docs/observability.md,
     * "Start-up"). A name not secret needs no secure random.
     */
    private static void atomicWrite(Path dir, Path target, String content) throws IOException {
        Path tmp = dir.resolve(target.getFileName() + "." + Long.toUnsignedString(
                ThreadLocalRandom.current().nextLong(), 36) + ".tmp");
        try {
            try (FileChannel ch = dir.getFileSystem().supportedFileAttributeViews()
                    .contains("posix")
                    ? FileChannel.open(tmp, TMP_OPTIONS, PosixFilePermissions.asFileAttribute(
                            PosixFilePermissions.fromString("rw-------")))
                    : FileChannel.open(tmp, TMP_OPTIONS)) {
                ByteBuffer buf = ByteBuffer.wrap(content.getBytes(StandardCharsets.UTF_8));
                while (buf.hasRemaining()) {
                    ch.write(buf);
                }
                ch.force(true);
            }
            try {
                Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE,
                        StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                throw new IOException("the file system of " + dir + " cannot rename atomically", e);
            }
            try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
                d.force(true);
            }
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    /** Whether the lock file says a state file was written for this worker. */
    static boolean usedBefore(FileChannel channel) throws IOException {
        ByteBuffer first = ByteBuffer.allocate(1);
        return channel.read(first, 0) == 1 && first.get(0) == '1';
    }

    /** Records in the lock file that a state file was written for its worker. */
    static void markUsed(FileChannel channel) throws IOException {
        if (!usedBefore(channel)) {
            channel.write(ByteBuffer.wrap(new byte[] {'1'}), 0);
            channel.force(true);
        }
    }

    /**
     * Lock file content: '1' or '0' (a state file was written), a space, the holder's text
     * ({@link io.idmint.spi.support.HolderText}: its name, then how far ahead it reserves).
     */
    static void writeLockFile(FileChannel channel, boolean used, String holder)
            throws IOException {
        byte[] text = ((used ? "1 " : "0 ") + holder + "\n").getBytes(StandardCharsets.UTF_8);
        channel.truncate(0);
        channel.write(ByteBuffer.wrap(text), 0);
        channel.force(true);
    }

    private static String crc(String s) {
        CRC32 crc = new CRC32();
        crc.update(s.getBytes(StandardCharsets.UTF_8));
        return String.format("%08x", crc.getValue());
    }

    static String name(int dc, int worker, String suffix) {
        return "worker-" + dc + "-" + worker + "." + suffix;
    }
}

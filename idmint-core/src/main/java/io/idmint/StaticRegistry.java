package io.idmint;

import io.idmint.spi.Claim;
import io.idmint.spi.ClaimRequest;
import io.idmint.spi.RegistryException;
import io.idmint.spi.RegistryException.Kind;
import io.idmint.spi.WorkerRecord;
import io.idmint.spi.WorkerRegistry;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;
import java.util.zip.CRC32;

/**
 * The {@code static:} registry: worker IDs on one host, kept in a data directory. Each worker has
 * a lock file, held with an OS file lock for as long as a process uses the worker (the OS drops
 * it when the process dies, even on kill -9), and a state file with its HWM, written atomically
 * (write, fsync, rename, fsync the directory) and guarded by a CRC. The fencing token is the
 * state file's generation, bumped on every write.
 *
 * <p>POSIX record locks belong to the process, and closing <em>any</em> descriptor of a file drops
 * them all, so this JVM never opens a second descriptor on a lock file it holds: {@link #IN_JVM}
 * remembers every lock file held by any instance here.
 *
 * <p>A lock file holds one byte once its state file has been written, so a state file that goes
 * missing later is reported instead of being mistaken for a fresh worker, whose HWM is 0.
 */
final class StaticRegistry implements WorkerRegistry {

    private static final String STATE_HEADER = "# idmint worker state: written atomically by idmint; do not edit";

    private static final Set<Path> IN_JVM = ConcurrentHashMap.newKeySet();

    private final Path root;
    private final Map<String, Held> held = new ConcurrentHashMap<>();

    /** A lock file this instance holds. */
    private record Held(Path lockPath, FileChannel channel) {
    }

    StaticRegistry(Path dataDir) {
        this.root = dataDir.toAbsolutePath().normalize().resolve("workers");
    }

    private record State(long hwmMillis, long generation) {
    }

    @Override
    public synchronized Claim claim(ClaimRequest request) throws RegistryException {
        Path dir = root.resolve(request.namespace());
        try {
            Files.createDirectories(dir);
            checkLayout(dir, request.layoutSpec());
            checkDatacenterName(dir, request);
        } catch (IOException e) {
            throw new RegistryException(Kind.UNAVAILABLE, "cannot use data directory " + dir + ": "
                    + e, e);
        }
        int dc = request.datacenterId();
        for (int worker : candidates(dir, request)) {
            Path lockPath = dir.resolve(name(dc, worker, "lock"));
            if (!IN_JVM.add(lockPath)) {
                continue;
            }
            FileChannel channel = null;
            try {
                channel = FileChannel.open(lockPath, StandardOpenOption.CREATE,
                        StandardOpenOption.READ, StandardOpenOption.WRITE);
                FileLock lock = tryLock(channel);
                if (lock == null) {
                    channel.close();
                    IN_JVM.remove(lockPath);
                    continue;
                }
                State state = read(dir, dc, worker, request.layoutSpec());
                boolean used = usedBefore(channel);
                if (state == null) {
                    if (used) {
                        throw new RegistryException(Kind.CORRUPT, "state file "
                                + dir.resolve(name(dc, worker, "state")) + " is missing, but "
                                + "worker " + worker + " was used before; restore the file, or "
                                + "delete the data directory only if no ID minted from it must "
                                + "stay unique");
                    }
                    state = new State(0, 0);
                }
                writeLockFile(channel, state.generation() > 0 || used, request.holder());
                held.put(key(request.namespace(), dc, worker), new Held(lockPath, channel));
                return new Claim(request.namespace(), dc, worker, state.generation(),
                        state.hwmMillis(), Long.MAX_VALUE);
            } catch (IOException e) {
                unlock(lockPath, channel);
                throw new RegistryException(Kind.UNAVAILABLE, "cannot claim worker " + worker
                        + " in " + dir + ": " + e, e);
            } catch (RegistryException e) {
                unlock(lockPath, channel);
                throw e;
            }
        }
        throw new RegistryException(Kind.POOL_FULL, "all " + (request.maxWorkerId() + 1)
                + " worker IDs of datacenter " + dc + " in " + dir
                + " are held by other processes");
    }

    @Override
    public synchronized long extend(Claim claim, long untilMillis) throws RegistryException {
        return write(claim, Math.max(untilMillis, claim.hwmMillis()), false);
    }

    @Override
    public synchronized void release(Claim claim, long finalHwmMillis) throws RegistryException {
        write(claim, Math.max(finalHwmMillis, claim.hwmMillis()), true);
    }

    /** Writes the HWM if the token is current; on release, lowers it to the final value. */
    private long write(Claim claim, long hwm, boolean release) throws RegistryException {
        String ns = claim.namespace();
        Held h = held.get(key(ns, claim.datacenterId(), claim.workerId()));
        if (h == null) {
            throw new RegistryException(Kind.LEASE_LOST, "worker " + claim.workerId()
                    + " is not held by this process");
        }
        Path dir = root.resolve(ns);
        FileChannel channel = h.channel();
        try {
            String layout = Files.readString(dir.resolve("layout"), StandardCharsets.UTF_8).trim();
            State state = read(dir, claim.datacenterId(), claim.workerId(), layout);
            long generation = state == null ? 0 : state.generation();
            if (generation != claim.token()) {
                throw new RegistryException(Kind.LEASE_LOST, "worker " + claim.workerId()
                        + " state generation is " + generation + ", expected " + claim.token());
            }
            long next = release ? hwm : Math.max(hwm, state == null ? 0 : state.hwmMillis());
            writeState(dir, claim.datacenterId(), claim.workerId(), layout, next, generation + 1);
            if (!usedBefore(channel)) {
                channel.write(ByteBuffer.wrap(new byte[] {'1'}), 0);
                channel.force(true);
            }
            return generation + 1;
        } catch (IOException e) {
            throw new RegistryException(Kind.UNAVAILABLE, "cannot write the state of worker "
                    + claim.workerId() + " in " + dir + ": " + e, e);
        } finally {
            if (release) {
                held.remove(key(ns, claim.datacenterId(), claim.workerId()));
                unlock(h.lockPath(), channel);
            }
        }
    }

    /**
     * The preferred worker, then the coldest: never-used ones (HWM 0) by ID, then used ones by
     * ascending HWM. At most 64 fresh IDs are listed, so a pool of millions costs nothing.
     */
    private Iterable<Integer> candidates(Path dir, ClaimRequest request) throws RegistryException {
        int dc = request.datacenterId();
        Map<Integer, Long> used = new LinkedHashMap<>();
        String prefix = "worker-" + dc + "-";
        try (Stream<Path> files = Files.list(dir)) {
            for (Path p : (Iterable<Path>) files::iterator) {
                String f = p.getFileName().toString();
                if (f.startsWith(prefix) && f.endsWith(".lock")) {
                    int w = Integer.parseInt(f.substring(prefix.length(), f.length() - 5));
                    if (w <= request.maxWorkerId()) {
                        State s = read(dir, dc, w, request.layoutSpec());
                        used.put(w, s == null ? 0 : s.hwmMillis());
                    }
                }
            }
        } catch (IOException | NumberFormatException e) {
            throw new RegistryException(Kind.UNAVAILABLE, "cannot list " + dir + ": " + e, e);
        }
        int preferred = request.preferredWorkerId();
        List<Integer> order = new ArrayList<>();
        if (preferred >= 0) {
            order.add(preferred);
        }
        int max = request.maxWorkerId();
        int fresh = 0;
        for (int w = 0; w <= max && fresh < 64; w++) {
            // Fresh IDs first: HWM 0 is the coldest. A few suffice, as only processes racing
            // this one for the same directory can take them.
            if (!used.containsKey(w) && w != preferred) {
                order.add(w);
                fresh++;
            }
        }
        used.entrySet().stream().sorted(Map.Entry.comparingByValue())
                .map(Map.Entry::getKey).filter(w -> w != preferred).forEach(order::add);
        return order;
    }

    private static void checkLayout(Path dir, String layoutSpec) throws IOException,
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

    private static void checkDatacenterName(Path dir, ClaimRequest request)
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
    private static State read(Path dir, int dc, int worker, String layoutSpec)
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

    private static void writeState(Path dir, int dc, int worker, String layoutSpec, long hwm,
            long generation) throws IOException {
        String body = STATE_HEADER + "\nversion=1\nlayout=" + layoutSpec + "\ndatacenter=" + dc
                + "\nworker=" + worker + "\nhwm=" + hwm + "\ngeneration=" + generation + "\n";
        atomicWrite(dir, dir.resolve(name(dc, worker, "state")), body + "crc32=" + crc(body)
                + "\n");
    }

    /** Write to a temporary file, fsync it, rename it over the target, fsync the directory. */
    private static void atomicWrite(Path dir, Path target, String content) throws IOException {
        Path tmp = Files.createTempFile(dir, target.getFileName().toString(), ".tmp");
        try {
            try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
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
    private static boolean usedBefore(FileChannel channel) throws IOException {
        ByteBuffer first = ByteBuffer.allocate(1);
        return channel.read(first, 0) == 1 && first.get(0) == '1';
    }

    /** Lock file content: '1' or '0' (a state file was written), a space, the holder. */
    private static void writeLockFile(FileChannel channel, boolean used, String holder)
            throws IOException {
        byte[] text = ((used ? "1 " : "0 ") + holder + "\n").getBytes(StandardCharsets.UTF_8);
        channel.truncate(0);
        channel.write(ByteBuffer.wrap(text), 0);
        channel.force(true);
    }

    private static FileLock tryLock(FileChannel channel) throws IOException {
        try {
            return channel.tryLock();
        } catch (OverlappingFileLockException e) {
            return null; // held by this JVM, through another channel
        }
    }

    private static String crc(String s) {
        CRC32 crc = new CRC32();
        crc.update(s.getBytes(StandardCharsets.UTF_8));
        return String.format("%08x", crc.getValue());
    }

    private static String name(int dc, int worker, String suffix) {
        return "worker-" + dc + "-" + worker + "." + suffix;
    }

    private static String key(String namespace, int dc, int worker) {
        return namespace + "/" + dc + "/" + worker;
    }

    /** Closes the channel (which drops the OS lock) and forgets the lock file. */
    private static void unlock(Path lockPath, FileChannel channel) {
        if (channel != null) {
            try {
                channel.close();
            } catch (IOException ignored) {
                // closing releases the lock; nothing more can be done
            }
        }
        IN_JVM.remove(lockPath);
    }

    @Override
    public synchronized List<WorkerRecord> list(String namespace) throws RegistryException {
        Path dir = root.resolve(namespace);
        List<WorkerRecord> out = new ArrayList<>();
        if (!Files.isDirectory(dir)) {
            return out;
        }
        try (Stream<Path> files = Files.list(dir)) {
            String layout = Files.readString(dir.resolve("layout"), StandardCharsets.UTF_8).trim();
            for (Path p : (Iterable<Path>) files.sorted()::iterator) {
                String f = p.getFileName().toString();
                if (!f.startsWith("worker-") || !f.endsWith(".lock")) {
                    continue;
                }
                String[] ids = f.substring(7, f.length() - 5).split("-");
                int dc = Integer.parseInt(ids[0]);
                int worker = Integer.parseInt(ids[1]);
                State s = read(dir, dc, worker, layout);
                String holder = holderOf(p);
                out.add(new WorkerRecord(dc, worker, s == null ? 0 : s.hwmMillis(), holder,
                        holder.isEmpty() ? 0 : Long.MAX_VALUE));
            }
        } catch (IOException | RuntimeException e) {
            throw new RegistryException(Kind.UNAVAILABLE, "cannot list " + dir + ": " + e, e);
        }
        out.sort(java.util.Comparator.comparingInt(WorkerRecord::datacenterId)
                .thenComparingInt(WorkerRecord::workerId));
        return out;
    }

    /** The holder named in a lock file if some process holds its lock, else "". */
    private static String holderOf(Path lockPath) throws IOException {
        String text = Files.readString(lockPath, StandardCharsets.UTF_8);
        String holder = text.length() > 2 ? text.substring(2).trim() : "?";
        if (IN_JVM.contains(lockPath)) {
            return holder;
        }
        if (!IN_JVM.add(lockPath)) {
            return holder;
        }
        try (FileChannel channel = FileChannel.open(lockPath, StandardOpenOption.WRITE)) {
            FileLock probe = tryLock(channel);
            return probe == null ? holder : "";
        } finally {
            IN_JVM.remove(lockPath);
        }
    }

    @Override
    public synchronized void close() {
        held.values().forEach(h -> unlock(h.lockPath(), h.channel()));
        held.clear();
    }
}

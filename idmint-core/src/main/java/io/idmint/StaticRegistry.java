package io.idmint;

import static io.idmint.StaticFiles.checkDatacenterName;
import static io.idmint.StaticFiles.checkLayout;
import static io.idmint.StaticFiles.markUsed;
import static io.idmint.StaticFiles.name;
import static io.idmint.StaticFiles.read;
import static io.idmint.StaticFiles.usedBefore;
import static io.idmint.StaticFiles.writeLockFile;
import static io.idmint.StaticFiles.writeState;

import io.idmint.StaticFiles.State;
import io.idmint.spi.Claim;
import io.idmint.spi.ClaimRequest;
import io.idmint.spi.RegistryException;
import io.idmint.spi.RegistryException.Kind;
import io.idmint.spi.WorkerRecord;
import io.idmint.spi.WorkerRegistry;
import io.idmint.spi.support.HolderText;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

/**
 * The {@code static:} registry: worker IDs on one host, kept in a data directory. Each worker has
 * a lock file, held with an OS file lock for as long as a process uses the worker (the OS drops
 * it when the process dies, even on kill -9), and a state file with its HWM, written atomically
 * (write, fsync, rename, fsync the directory) and guarded by a CRC. The fencing token is the
 * state file's generation, bumped on every write.
 *
 * <p>POSIX record locks belong to the process, and closing <em>any</em> descriptor of a file drops
 * them all, so this JVM never opens a second descriptor on a lock file it holds, not even to read
 * it: {@link #IN_JVM} remembers every lock file held (or being tried) by any instance here, and
 * {@link #HELD} the channel of each one held, through which it is read. (Reading a held lock
 * file with a descriptor of its own, as {@link #list} once did for the holder's name, dropped the
 * lock: another process then took the worker from under its holder.)
 *
 * <p>A lock file holds one byte once its state file has been written, so a state file that goes
 * missing later is reported instead of being mistaken for a fresh worker, whose HWM is 0.
 */
final class StaticRegistry implements WorkerRegistry {

    private static final Set<Path> IN_JVM = ConcurrentHashMap.newKeySet();
    /** The channel of every lock file a registry in this JVM holds the lock of. */
    private static final Map<Path, FileChannel> HELD = new ConcurrentHashMap<>();

    private final Path root;
    private final Map<String, Held> held = new ConcurrentHashMap<>();

    /** A lock file this instance holds. */
    private record Held(Path lockPath, FileChannel channel) {
    }

    StaticRegistry(Path dataDir) {
        this.root = dataDir.toAbsolutePath().normalize().resolve("workers");
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
                HELD.put(lockPath, channel);
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
                writeLockFile(channel, state.generation() > 0 || used,
                        HolderText.of(request.holder(), request.maxAheadMillis()));
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
            markUsed(channel);
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
     * The preferred worker; then, by ID, the free ones whose HWM is not ahead of this host's
     * clock, never-used ones (HWM 0) among them; then the rest by ascending HWM (the coldest
     * first). At most 64 never-used IDs are listed, so a pool of millions costs nothing.
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
        long now = System.currentTimeMillis();
        int max = request.maxWorkerId();
        int fresh = 0;
        for (int w = 0; w <= max && fresh < 64; w++) {
            // Locked ones are skipped by the caller; a few fresh IDs suffice, as only processes
            // racing this one for the same directory can take them.
            if (w != preferred && used.getOrDefault(w, 0L) <= now) {
                order.add(w);
                fresh += used.containsKey(w) ? 0 : 1;
            }
        }
        used.entrySet().stream().filter(e -> e.getValue() > now)
                .sorted(Map.Entry.comparingByValue()).map(Map.Entry::getKey)
                .filter(w -> w != preferred).forEach(order::add);
        return order;
    }

    private static FileLock tryLock(FileChannel channel) throws IOException {
        try {
            return channel.tryLock();
        } catch (OverlappingFileLockException e) {
            return null; // held by this JVM, through another channel
        }
    }

    private static String key(String namespace, int dc, int worker) {
        return namespace + "/" + dc + "/" + worker;
    }

    /** Closes the channel (which drops the OS lock) and forgets the lock file. */
    private static void unlock(Path lockPath, FileChannel channel) {
        if (channel != null) {
            HELD.remove(lockPath, channel);
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
                String text = holderOf(p);
                String holder = HolderText.name(text);
                out.add(new WorkerRecord(dc, worker, s == null ? 0 : s.hwmMillis(), holder,
                        holder.isEmpty() ? 0 : Long.MAX_VALUE,
                        holder.isEmpty() ? 0 : HolderText.maxAheadMillis(text)));
            }
        } catch (IOException | RuntimeException e) {
            throw new RegistryException(Kind.UNAVAILABLE, "cannot list " + dir + ": " + e, e);
        }
        out.sort(Comparator.comparingInt(WorkerRecord::datacenterId)
                .thenComparingInt(WorkerRecord::workerId));
        return out;
    }

    /**
     * The holder text ({@link HolderText}) of a lock file if some process holds its lock, else
     * "". A lock file held in this JVM is read through the channel that holds it; any other is
     * opened only while no thread here uses it, and read through the same descriptor that probes
     * its lock.
     */
    private static String holderOf(Path lockPath) throws IOException {
        FileChannel held = HELD.get(lockPath);
        if (held != null) {
            return holderIn(held);
        }
        if (!IN_JVM.add(lockPath)) {
            // Being claimed or probed by another thread here at this very moment.
            held = HELD.get(lockPath);
            return held != null ? holderIn(held) : "?";
        }
        try (FileChannel channel = FileChannel.open(lockPath, StandardOpenOption.READ,
                StandardOpenOption.WRITE)) {
            FileLock probe = tryLock(channel);
            return probe == null ? holderIn(channel) : "";
        } finally {
            IN_JVM.remove(lockPath);
        }
    }

    /** The holder text a lock file keeps, read through {@code channel} without moving it. */
    private static String holderIn(FileChannel channel) throws IOException {
        java.nio.ByteBuffer buf = java.nio.ByteBuffer.allocate(4096);
        long pos = 0;
        int n;
        while (buf.hasRemaining() && (n = channel.read(buf, pos)) > 0) {
            pos += n;
        }
        String text = new String(buf.array(), 0, buf.position(), StandardCharsets.UTF_8);
        return text.length() > 2 ? text.substring(2).trim() : "?";
    }

    @Override
    public synchronized void close() {
        held.values().forEach(h -> unlock(h.lockPath(), h.channel()));
        held.clear();
    }
}

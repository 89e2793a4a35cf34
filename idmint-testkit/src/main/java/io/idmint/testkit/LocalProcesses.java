package io.idmint.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * What tests that run stores as local processes need: free ports, signals, waiting for an exit
 * or between polls, and deleting a data directory.
 */
public final class LocalProcesses {

    private LocalProcesses() {
    }

    /** Where the JVMs of one machine's test runs claim ports (a lock file per port). */
    private static final Path PORT_CLAIMS = Path.of(System.getProperty("java.io.tmpdir"),
            "idmint-test-ports");
    /** The claims this JVM holds until it exits (a released lock lets another JVM take one). */
    private static final List<FileChannel> CLAIMED = new ArrayList<>();
    /** Ports handed out from here: below the kernel's ephemeral range, above the well-known. */
    private static final int LOWEST_PORT = 10_000;

    /**
     * {@code n} distinct loopback ports for processes a test starts, free now and kept from every
     * other test JVM on this machine for as long as this one runs. Ports come from below the
     * kernel's ephemeral range, so no outgoing connection takes one before the process binds it,
     * and each is claimed with a lock file, so tests running at once in other JVMs (failsafe's
     * forks, Maven's module threads) never get the same one.
     */
    public static synchronized int[] freePorts(int n) {
        int ceiling = ephemeralLow();
        int[] ports = new int[n];
        java.util.Random random = new java.util.Random();
        try {
            Files.createDirectories(PORT_CLAIMS);
            int found = 0;
            for (int attempt = 0; found < n; attempt++) {
                if (attempt > 10_000) {
                    throw new IllegalStateException("no free loopback port between "
                            + LOWEST_PORT + " and " + ceiling + " after 10,000 tries");
                }
                int port = LOWEST_PORT + random.nextInt(ceiling - LOWEST_PORT);
                if (claim(port)) {
                    ports[found++] = port;
                }
            }
            return ports;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot claim ports in " + PORT_CLAIMS, e);
        }
    }

    /** One free loopback port, claimed as {@link #freePorts} does. */
    public static int freePort() {
        return freePorts(1)[0];
    }

    private static boolean claim(int port) throws IOException {
        FileChannel ch = FileChannel.open(PORT_CLAIMS.resolve(Integer.toString(port)),
                StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        FileLock lock;
        try {
            lock = ch.tryLock();
        } catch (OverlappingFileLockException e) {
            lock = null; // this JVM holds it already
        }
        if (lock == null) {
            ch.close();
            return false;
        }
        try (ServerSocket s = new ServerSocket()) {
            s.setReuseAddress(false);
            s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1);
        } catch (IOException inUse) {
            ch.close();
            return false;
        }
        CLAIMED.add(ch);
        return true;
    }

    /** The low end of the kernel's ephemeral port range (Linux), 32768 where unreadable. */
    private static int ephemeralLow() {
        try {
            String range = Files.readString(Path.of("/proc/sys/net/ipv4/ip_local_port_range"))
                    .trim();
            int low = Integer.parseInt(range.split("\\s+")[0]);
            return low > LOWEST_PORT + 1000 ? low : 32_768;
        } catch (IOException | RuntimeException e) {
            return 32_768;
        }
    }

    /**
     * Sends a signal by name ({@code STOP}, {@code CONT}) to a running process with kill(1).
     *
     * @throws IllegalStateException when kill(1) fails (the process is gone)
     */
    public static void signal(Process process, String signal) {
        try {
            Process kill = new ProcessBuilder("kill", "-" + signal,
                    Long.toString(process.pid())).inheritIO().start();
            if (kill.waitFor() != 0) {
                throw new IllegalStateException("kill -" + signal + " " + process.pid()
                        + " failed with " + kill.exitValue());
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run kill(1)", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /** Waits until {@code p} has exited; an interrupt ends the wait, kept set. */
    public static void awaitExit(Process p) {
        try {
            p.waitFor();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The pause between two polls of a process's state (50 ms). */
    public static void nap() {
        try {
            Thread.sleep(50);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while polling a process", e);
        }
    }

    /** Deletes a temporary directory and everything in it, as far as it can. */
    public static void deleteTree(java.nio.file.Path dir) {
        try (java.util.stream.Stream<java.nio.file.Path> files = java.nio.file.Files.walk(dir)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // a temporary directory; nothing to do
        }
    }
}

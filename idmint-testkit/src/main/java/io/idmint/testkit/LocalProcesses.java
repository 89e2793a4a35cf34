package io.idmint.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;

/**
 * What tests that run stores as local processes need: free ports, signals, waiting for an exit
 * or between polls, and deleting a data directory.
 */
public final class LocalProcesses {

    private LocalProcesses() {
    }

    /** {@code n} distinct loopback ports that were free a moment ago. */
    public static int[] freePorts(int n) {
        List<ServerSocket> sockets = new ArrayList<>();
        try {
            int[] ports = new int[n];
            for (int i = 0; i < n; i++) {
                ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                sockets.add(s);
                ports[i] = s.getLocalPort();
            }
            return ports;
        } catch (IOException e) {
            throw new UncheckedIOException("no free loopback port", e);
        } finally {
            for (ServerSocket s : sockets) {
                try {
                    s.close();
                } catch (IOException e) {
                    // a probe socket; nothing to do
                }
            }
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

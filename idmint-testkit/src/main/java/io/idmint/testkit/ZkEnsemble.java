package io.idmint.testkit;

import io.idmint.spi.support.Durations;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * A real ZooKeeper ensemble for tests whose members are processes: each a JVM running
 * {@code org.apache.zookeeper.server.quorum.QuorumPeerMain} from the caller's class path (the
 * test's ZooKeeper, which Curator's test jar brings), on free loopback ports, with its data in a
 * temporary directory. Unlike Curator's in-JVM {@code TestingCluster}, a member can be frozen
 * with SIGSTOP ({@link #pause}): its connections stay open and answer nothing, as a hung host's.
 * {@link #close()} kills every member and deletes the data; a JVM shutdown hook kills what a test
 * left running.
 *
 * <p>A 100 ms tick: elections in about a second, sessions from 200 ms, so a lease TTL of a few
 * seconds is a session of that length. {@code srvr} is enabled to name the leader.
 */
public final class ZkEnsemble implements AutoCloseable {

    private static final String MAIN = "org.apache.zookeeper.server.quorum.QuorumPeerMain";
    private static final Duration START_TIMEOUT = Duration.ofSeconds(60);

    private final Path dir;
    private final List<Member> members = new ArrayList<>();
    private final Thread reaper = new Thread(this::killAll, "zk-ensemble-reaper");

    private static final class Member {
        final int id;
        final int clientPort;
        final Path config;
        Process process;
        boolean paused;

        Member(int id, int clientPort, Path config) {
            this.id = id;
            this.clientPort = clientPort;
            this.config = config;
        }
    }

    private ZkEnsemble(int size) throws IOException {
        dir = Files.createTempDirectory("idmint-zk-");
        int[] ports = LocalProcesses.freePorts(3 * size);
        String servers = java.util.stream.IntStream.range(0, size)
                .mapToObj(i -> "server." + (i + 1) + "=127.0.0.1:" + ports[3 * i + 1] + ":"
                        + ports[3 * i + 2])
                .collect(Collectors.joining("\n"));
        for (int i = 0; i < size; i++) {
            Path data = Files.createDirectories(dir.resolve("m" + i));
            Files.writeString(data.resolve("myid"), Integer.toString(i + 1));
            Path config = dir.resolve("m" + i + ".cfg");
            Files.writeString(config, String.join("\n",
                    "tickTime=100", "initLimit=50", "syncLimit=20",
                    "dataDir=" + data,
                    "clientPort=" + ports[3 * i],
                    "clientPortAddress=127.0.0.1",
                    "minSessionTimeout=200", "maxSessionTimeout=60000",
                    "admin.enableServer=false",
                    "4lw.commands.whitelist=srvr",
                    servers) + "\n");
            members.add(new Member(i + 1, ports[3 * i], config));
        }
        Runtime.getRuntime().addShutdownHook(reaper);
    }

    /** Starts {@code size} members and waits until each serves as leader or follower. */
    public static ZkEnsemble start(int size) {
        ZkEnsemble z;
        try {
            z = new ZkEnsemble(size);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot set up a ZooKeeper ensemble", e);
        }
        try {
            for (int i = 0; i < size; i++) {
                z.launch(i);
            }
            z.awaitHealthy(START_TIMEOUT);
            return z;
        } catch (RuntimeException e) {
            z.close();
            throw e;
        }
    }

    public int size() {
        return members.size();
    }

    /** {@code host:port,...} of every member, for a ZooKeeper client. */
    public String connectString() {
        return members.stream().map(m -> "127.0.0.1:" + m.clientPort)
                .collect(Collectors.joining(","));
    }

    public long pid(int member) {
        Process p = members.get(member).process;
        if (p == null || !p.isAlive()) {
            throw new IllegalStateException("member " + member + " is not running");
        }
        return p.pid();
    }

    public boolean isRunning(int member) {
        Process p = members.get(member).process;
        return p != null && p.isAlive();
    }

    /** Kills a member at once (SIGKILL), as a crash would. */
    public void kill(int member) {
        Process p = members.get(member).process;
        if (p != null) {
            p.destroyForcibly();
            LocalProcesses.awaitExit(p);
        }
    }

    /** Freezes a running member (SIGSTOP): it answers nothing until {@link #resume}. */
    public void pause(int member) {
        LocalProcesses.signal(members.get(member).process, "STOP");
        members.get(member).paused = true;
    }

    /** Lets a {@linkplain #pause paused} member run again (SIGCONT). */
    public void resume(int member) {
        LocalProcesses.signal(members.get(member).process, "CONT");
        members.get(member).paused = false;
    }

    /** Starts a killed member again on its ports and data; does not wait for it. */
    public void restart(int member) {
        if (isRunning(member)) {
            throw new IllegalStateException("member " + member + " is running");
        }
        launch(member);
    }

    /** The index of the member that says it leads, waiting up to {@code timeout} for one. */
    public int leader(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        do {
            for (int i = 0; i < members.size(); i++) {
                if (isRunning(i) && !members.get(i).paused
                        && srvr(members.get(i).clientPort).contains("Mode: leader")) {
                    return i;
                }
            }
            LocalProcesses.nap();
        } while (System.nanoTime() < deadline);
        throw new IllegalStateException("no ZooKeeper leader within "
                + Durations.format(timeout) + "; logs in " + dir);
    }

    /**
     * Waits until every running member that is not paused serves as leader or follower (it is
     * part of a quorum). Killed members are skipped.
     */
    public void awaitHealthy(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        for (int i = 0; i < members.size(); i++) {
            Member m = members.get(i);
            while (isRunning(i) && !m.paused && !serving(m.clientPort)) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("ZooKeeper member " + i + " not serving "
                            + "within " + Durations.format(timeout) + "; log: " + log(i));
                }
                LocalProcesses.nap();
            }
        }
    }

    private static boolean serving(int port) {
        String s = srvr(port);
        return s.contains("Mode: leader") || s.contains("Mode: follower");
    }

    /** The answer to the {@code srvr} four-letter command, or "" when there is none. */
    private static String srvr(int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 500);
            s.setSoTimeout(1000);
            OutputStream out = s.getOutputStream();
            out.write("srvr".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = s.getInputStream();
            return new String(in.readAllBytes(), StandardCharsets.US_ASCII);
        } catch (IOException e) {
            return "";
        }
    }

    /** Kills every member and deletes the data. */
    @Override
    public void close() {
        killAll();
        try {
            Runtime.getRuntime().removeShutdownHook(reaper);
        } catch (IllegalStateException e) {
            // the JVM is shutting down; the hook kills what is left
        }
        LocalProcesses.deleteTree(dir);
    }

    private void killAll() {
        for (int i = 0; i < members.size(); i++) {
            kill(i);
        }
    }

    private void launch(int i) {
        Member m = members.get(i);
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        ProcessBuilder pb = new ProcessBuilder(java.toString(), "-Xmx128m", "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"),
                "-Dzookeeper.admin.enableServer=false", MAIN, m.config.toString())
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("m" + i + ".log")
                        .toFile()));
        try {
            m.process = pb.start();
            m.paused = false;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start ZooKeeper member " + m.id, e);
        }
    }

    private String log(int i) {
        try {
            List<String> lines = Files.readAllLines(dir.resolve("m" + i + ".log"));
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 20),
                    lines.size()));
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }



    @Override
    public String toString() {
        return "ZooKeeper ensemble " + connectString() + " (logs in " + dir + ")";
    }
}

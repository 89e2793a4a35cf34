package io.idmint.testkit;

import io.idmint.spi.Durations;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Real etcd servers for tests: one member or a cluster, each an {@code /usr/bin/etcd} process
 * (Debian's {@code etcd-server}) on free loopback ports with its data in a temporary directory.
 * Members can be killed, stopped and started again on the same ports and data, so tests can
 * take the leader away or the whole store down and bring it back. {@link #close()} stops every
 * process and deletes the data; a JVM shutdown hook kills what a test left running.
 *
 * <p>Clusters use {@code --heartbeat-interval 50 --election-timeout 500}: they start in about a
 * second and elect a new leader within about one when the leader dies.
 *
 * <p>{@link #startTls} serves clients over TLS only (certificates from a {@link TestPki}, with
 * {@code --client-cert-auth} if asked); peers talk plain text. Health and metrics are read from
 * a separate plain-text {@code --listen-metrics-urls} port in both modes.
 */
public final class EtcdCluster implements AutoCloseable {

    /** Where the Debian package puts the server. */
    public static final Path ETCD = Path.of("/usr/bin/etcd");

    private static final Duration START_TIMEOUT = Duration.ofSeconds(30);

    private final Path dir;
    private final List<Member> members = new ArrayList<>();
    private final HttpClient http = HttpClient.newBuilder()
            .connectTimeout(Duration.ofMillis(500)).build();
    private final Thread reaper = new Thread(this::killAll, "etcd-cluster-reaper");
    private final TestPki ca;
    private final boolean clientCertAuth;

    private static final class Member {
        final String name;
        final int clientPort;
        final int peerPort;
        final int metricsPort;
        final Path dataDir;
        Process process;

        Member(String name, int[] ports, Path dataDir) {
            this.name = name;
            this.clientPort = ports[0];
            this.peerPort = ports[1];
            this.metricsPort = ports[2];
            this.dataDir = dataDir;
        }
    }

    private EtcdCluster(int size, TestPki ca, boolean clientCertAuth) throws IOException {
        this.ca = ca;
        this.clientCertAuth = clientCertAuth;
        if (!Files.isExecutable(ETCD)) {
            throw new IllegalStateException(ETCD + " is missing: install it with "
                    + "'apt-get install etcd-server' (scripts/test does this)");
        }
        dir = Files.createTempDirectory("idmint-etcd-");
        int[] ports = freePorts(3 * size);
        for (int i = 0; i < size; i++) {
            members.add(new Member("m" + i, new int[] {ports[3 * i], ports[3 * i + 1],
                    ports[3 * i + 2]}, dir.resolve("m" + i)));
        }
        Runtime.getRuntime().addShutdownHook(reaper);
    }

    /** Starts a single member and waits until it serves. */
    public static EtcdCluster single() {
        return start(1);
    }

    /** Starts {@code size} members (1 or 3, usually) and waits until every one serves. */
    public static EtcdCluster start(int size) {
        return start(size, null, false);
    }

    /**
     * Starts {@code size} members that serve clients over TLS only, each with a server
     * certificate signed by {@code ca} (valid for 127.0.0.1), and waits until every one serves.
     *
     * @param clientCertAuth whether members demand a client certificate signed by {@code ca}
     *     ({@code --client-cert-auth}); with etcd's auth enabled, its common name is the user
     */
    public static EtcdCluster startTls(int size, TestPki ca, boolean clientCertAuth) {
        return start(size, ca, clientCertAuth);
    }

    private static EtcdCluster start(int size, TestPki ca, boolean clientCertAuth) {
        if (size < 1) {
            throw new IllegalArgumentException("an etcd cluster needs at least one member");
        }
        EtcdCluster c;
        try {
            c = new EtcdCluster(size, ca, clientCertAuth);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        try {
            for (int i = 0; i < size; i++) {
                c.launch(i, true);
            }
            c.awaitHealthy(START_TIMEOUT);
            for (int i = 0; i < size; i++) {
                if (!c.isRunning(i)) {
                    throw new IllegalStateException("etcd member " + i + " exited; log: "
                            + c.log(i));
                }
            }
            return c;
        } catch (RuntimeException | Error e) {
            c.close();
            throw e;
        }
    }

    /** How many members the cluster has. */
    public int size() {
        return members.size();
    }

    /** {@code 127.0.0.1:port} of every member, comma-separated, for an {@code etcd://} URI. */
    public String endpoints() {
        return members.stream().map(m -> "127.0.0.1:" + m.clientPort)
                .collect(Collectors.joining(","));
    }

    /** {@code 127.0.0.1:port} of one member. */
    public String endpoint(int member) {
        return "127.0.0.1:" + members.get(member).clientPort;
    }

    private String metricsEndpoint(int member) {
        return "127.0.0.1:" + members.get(member).metricsPort;
    }

    /** The process ID of a running member. */
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
            awaitExit(p);
        }
    }

    /** Stops a member cleanly (SIGTERM, then SIGKILL after 5 s). */
    public void stop(int member) {
        Process p = members.get(member).process;
        if (p != null) {
            p.destroy();
            try {
                if (!p.waitFor(5, java.util.concurrent.TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                p.destroyForcibly();
            }
            awaitExit(p);
        }
    }

    /** Stops every member: the store is down. */
    public void stopAll() {
        for (int i = 0; i < members.size(); i++) {
            stop(i);
        }
    }

    /** Starts a stopped member again on its ports and data; does not wait for it. */
    public void restart(int member) {
        if (isRunning(member)) {
            throw new IllegalStateException("member " + member + " is running");
        }
        launch(member, false);
    }

    /** Starts every stopped member again and waits until the cluster serves. */
    public void restartAll() {
        for (int i = 0; i < members.size(); i++) {
            if (!isRunning(i)) {
                launch(i, false);
            }
        }
        awaitHealthy(START_TIMEOUT);
    }

    /**
     * The index of the current leader, waiting up to {@code timeout} for running members to
     * agree on one.
     */
    public int leader(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        do {
            for (int i = 0; i < members.size(); i++) {
                if (isRunning(i) && metric(i, "etcd_server_is_leader") == 1) {
                    return i;
                }
            }
            pause();
        } while (System.nanoTime() < deadline);
        throw new IllegalStateException("no etcd leader within " + Durations.format(timeout)
                + "; logs in " + dir);
    }

    /**
     * Waits until every running member reports healthy (it sees a leader and serves a quorum
     * read). Members that are stopped or killed are skipped.
     */
    public void awaitHealthy(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        for (int i = 0; i < members.size(); i++) {
            while (isRunning(i) && !healthy(i)) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("etcd member " + i + " not healthy within "
                            + Durations.format(timeout) + "; log: " + log(i));
                }
                pause();
            }
        }
    }

    /** Stops every member and deletes the data. */
    @Override
    public void close() {
        stopAll();
        try {
            Runtime.getRuntime().removeShutdownHook(reaper);
        } catch (IllegalStateException e) {
            // the JVM is shutting down; the hook kills what is left
        }
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // a temporary directory; nothing to do
        }
    }

    private void launch(int i, boolean fresh) {
        Member m = members.get(i);
        String cluster = members.stream().map(x -> x.name + "=http://127.0.0.1:" + x.peerPort)
                .collect(Collectors.joining(","));
        String client = (ca == null ? "http" : "https") + "://127.0.0.1:" + m.clientPort;
        List<String> cmd = new ArrayList<>(List.of(ETCD.toString(),
                "--name", m.name,
                "--data-dir", m.dataDir.toString(),
                "--listen-client-urls", client,
                "--advertise-client-urls", client,
                "--listen-metrics-urls", "http://127.0.0.1:" + m.metricsPort,
                "--listen-peer-urls", "http://127.0.0.1:" + m.peerPort,
                "--initial-advertise-peer-urls", "http://127.0.0.1:" + m.peerPort,
                "--initial-cluster", cluster,
                "--initial-cluster-state", "new",
                "--initial-cluster-token", "idmint-" + dir.getFileName(),
                "--heartbeat-interval", "50",
                "--election-timeout", "500",
                "--logger", "zap",
                "--log-level", "warn"));
        if (ca != null) {
            TestPki.Issued cert = ca.peer("etcd-" + m.name);
            cmd.addAll(List.of("--cert-file", cert.certificate().toString(),
                    "--key-file", cert.privateKey().toString()));
            if (clientCertAuth) {
                // etcd demands client certificates whenever it has a trusted CA file.
                cmd.addAll(List.of("--client-cert-auth",
                        "--trusted-ca-file", ca.certificate().toString()));
            }
        }
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve(m.name + ".log")
                        .toFile()));
        pb.environment().keySet().removeIf(k -> k.startsWith("ETCD"));
        try {
            m.process = pb.start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + ETCD + (fresh ? "" : " again"), e);
        }
    }

    private boolean healthy(int i) {
        try {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://"
                    + metricsEndpoint(i) + "/health")).timeout(Duration.ofSeconds(1)).build(),
                    HttpResponse.BodyHandlers.ofString());
            return r.statusCode() == 200
                    && r.body().replace(" ", "").contains("\"health\":\"true\"");
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /** A gauge from a member's /metrics, or -1 when it cannot be read. */
    private long metric(int i, String name) {
        try {
            URI uri = URI.create("http://" + metricsEndpoint(i) + "/metrics");
            HttpResponse<Stream<String>> r = http.send(HttpRequest.newBuilder(uri)
                    .timeout(Duration.ofSeconds(1)).build(), HttpResponse.BodyHandlers.ofLines());
            try (Stream<String> lines = r.body()) {
                return lines.filter(l -> l.startsWith(name + " ")).findFirst()
                        .map(l -> (long) Double.parseDouble(l.substring(name.length() + 1).trim()))
                        .orElse(-1L);
            }
        } catch (IOException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    private String log(int i) {
        Path log = dir.resolve(members.get(i).name + ".log");
        try {
            List<String> lines = Files.readAllLines(log);
            return log + "\n" + String.join("\n", lines.subList(Math.max(0, lines.size() - 20),
                    lines.size()));
        } catch (IOException e) {
            return log + " (unreadable)";
        }
    }

    private void killAll() {
        for (Member m : members) {
            if (m.process != null) {
                m.process.destroyForcibly();
            }
        }
    }

    private static void awaitExit(Process p) {
        try {
            p.waitFor();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void pause() {
        try {
            Thread.sleep(50);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    private static int[] freePorts(int n) throws IOException {
        List<ServerSocket> sockets = new ArrayList<>();
        try {
            int[] ports = new int[n];
            for (int i = 0; i < n; i++) {
                ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                sockets.add(s);
                ports[i] = s.getLocalPort();
            }
            return ports;
        } finally {
            for (ServerSocket s : sockets) {
                s.close();
            }
        }
    }

    @Override
    public String toString() {
        return "etcd " + endpoints() + " (data and logs in " + dir + ")";
    }
}

package io.idmint.testkit;

import io.idmint.spi.support.Durations;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Real etcd servers for tests: one member or a cluster, each an {@code /usr/bin/etcd} process
 * (Debian's {@code etcd-server}) on free loopback ports with its data in a temporary directory.
 * Members can be killed, stopped and started again on the same ports and data, so tests can
 * take the leader away or the whole store down and bring it back. {@link #close()} stops every
 * process and deletes the data; a JVM shutdown hook kills what a test left running.
 *
 * <p>Clusters use {@code --heartbeat-interval 50 --election-timeout 500}: they start in about a
 * second and elect a new leader within about one when the leader dies or hangs
 * ({@link #pause}: SIGSTOP, its connections stay open and never answer).
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
        boolean paused;

        Member(String name, int[] ports, int first, Path dataDir) {
            this.name = name;
            this.clientPort = ports[first];
            this.peerPort = ports[first + 1];
            this.metricsPort = ports[first + 2];
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
        int[] ports = LocalProcesses.freePorts(3 * size);
        for (int i = 0; i < size; i++) {
            members.add(new Member("m" + i, ports, 3 * i, dir.resolve("m" + i)));
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
            LocalProcesses.awaitExit(p);
        }
    }

    /**
     * Freezes a running member (SIGSTOP), as a hung host or a long stall would: its TCP
     * connections stay open and accept bytes, but it answers nothing until {@link #resume}.
     */
    public void pause(int member) {
        LocalProcesses.signal(members.get(member).process, "STOP");
        members.get(member).paused = true;
    }

    /** Lets a {@linkplain #pause paused} member run again (SIGCONT). */
    public void resume(int member) {
        LocalProcesses.signal(members.get(member).process, "CONT");
        members.get(member).paused = false;
    }

    /** Stops a member cleanly (SIGTERM, then SIGKILL after 5 s); a paused one is resumed first. */
    public void stop(int member) {
        Process p = members.get(member).process;
        if (p != null) {
            if (members.get(member).paused && p.isAlive()) {
                resume(member);
            }
            p.destroy();
            try {
                if (!p.waitFor(5, java.util.concurrent.TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                p.destroyForcibly();
            }
            LocalProcesses.awaitExit(p);
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

    /** The index of the current leader, waiting up to {@code timeout} for one. */
    public int leader(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        do {
            for (int i = 0; i < members.size(); i++) {
                if (isRunning(i) && metric(i, "etcd_server_is_leader") == 1) {
                    return i;
                }
            }
            LocalProcesses.nap();
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
                LocalProcesses.nap();
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
        LocalProcesses.deleteTree(dir);
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
                // Tests kill members, never the machine: a killed member's writes are in the
                // page cache, so an fsync per commit buys nothing here but disk waits that
                // clusters running at once (the build's parallel test JVMs) stretch into
                // timeouts.
                "--unsafe-no-fsync",
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
            m.paused = false;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + ETCD + (fresh ? "" : " again"), e);
        }
    }

    private boolean healthy(int i) {
        String body = get(i, "/health");
        return body != null && body.replace(" ", "").contains("\"health\":\"true\"");
    }

    /**
     * A counter or gauge from member {@code i}'s metrics endpoint (such as
     * {@code etcd_server_proposals_committed_total}), or -1 when the member does not answer or
     * has no such metric.
     */
    public long metric(int i, String name) {
        String body = get(i, "/metrics");
        return body == null ? -1 : body.lines().filter(l -> l.startsWith(name + " ")).findFirst()
                .map(l -> (long) Double.parseDouble(l.substring(name.length() + 1).trim()))
                .orElse(-1L);
    }

    /** The body of a member's plain-text metrics endpoint {@code path}, or null on no 200. */
    private String get(int i, String path) {
        try {
            URI uri = URI.create("http://127.0.0.1:" + members.get(i).metricsPort + path);
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(uri)
                    .timeout(Duration.ofSeconds(1)).build(), HttpResponse.BodyHandlers.ofString());
            return r.statusCode() == 200 ? r.body() : null;
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            throw interrupted(e);
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
        members.stream().map(m -> m.process).filter(p -> p != null)
                .forEach(Process::destroyForcibly);
    }



    private static IllegalStateException interrupted(InterruptedException e) {
        Thread.currentThread().interrupt();
        return new IllegalStateException("interrupted", e);
    }

    @Override
    public String toString() {
        return "etcd " + endpoints() + " (data and logs in " + dir + ")";
    }
}

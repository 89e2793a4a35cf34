package io.idmint.server.harness;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Real {@code idmint} processes for the fault tests: the shaded jar in JVMs of their own,
 * started, signalled (SIGSTOP, SIGCONT, SIGTERM, SIGKILL) and asked over HTTP, with each one's
 * stderr in a file of its own so that a failed assertion can show it. {@link #close()} kills
 * every process this started that is still alive.
 */
public final class IdmintProcesses implements AutoCloseable {

    /** Where Debian's faketime package puts the library, by architecture. */
    public static final List<Path> FAKETIME_LIBS = List.of(
            Path.of("/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1"),
            Path.of("/usr/lib/aarch64-linux-gnu/faketime/libfaketime.so.1"),
            Path.of("/usr/lib/faketime/libfaketime.so.1"));

    private static final Pattern BANNER = Pattern.compile("idmint serving https?://127\\.0\\.0\\.1:"
            + "(\\d+) grpc 127\\.0\\.0\\.1:(\\d+)(?: with (?:mutual )?TLS)? "
            + "\\(datacenter (\\d+|none yet), workers? (.*), "
            + "layout (.*)\\)(?:; registry static: is ONE HOST ONLY: .*)?");
    /**
     * A client JVM that starts quickly: C1 only and the serial collector. Two cores run many of
     * these at once here; the behaviour under test does not depend on the JIT or the collector.
     */
    private static final List<String> JVM_OPTIONS = List.of("-XX:TieredStopAtLevel=1",
            "-XX:+UseSerialGC", "-Xmx256m");

    /**
     * The collector the launcher and the image run serve with (G1, keeping the heap it grew
     * to), on a small heap: memory a collection would free does not pass for memory held. The
     * heap is committed and touched whole at start, so resident memory measured later is what
     * the work added beyond it (buffers, connections, threads), not how far the heap had grown
     * when the measure began.
     */
    public static final List<String> AS_SHIPPED = List.of("-XX:+UseG1GC",
            "-XX:MaxHeapFreeRatio=100", "-Xmx192m", "-Xms192m", "-XX:+AlwaysPreTouch");

    private final Path jar;
    private final Path dir;
    private List<String> jvmOptions = JVM_OPTIONS;
    private boolean aheadOfCallers;
    private final List<Process> started = Collections.synchronizedList(new ArrayList<>());
    private final List<Node> nodes = Collections.synchronizedList(new ArrayList<>());

    public IdmintProcesses(Path dir) {
        this.jar = shadedJar();
        this.dir = dir;
    }

    /** The built {@code idmint.jar}, which failsafe names in the system property of that name. */
    public static Path shadedJar() {
        String path = System.getProperty("idmint.jar");
        assertThat(path).as("system property idmint.jar (set by failsafe)").isNotNull();
        Path jar = Path.of(path);
        assertThat(jar).exists();
        return jar;
    }

    /**
     * Starts the processes from now on with {@code options} instead of the quick-starting
     * client JVM's: {@link #AS_SHIPPED} where pauses and memory are what a test measures.
     */
    public IdmintProcesses jvmOptions(List<String> options) {
        this.jvmOptions = List.copyOf(options);
        return this;
    }

    /**
     * Starts the processes from now on ahead of this JVM in the scheduler ({@code nice -n -20},
     * where the user may; root only on Linux), as servers whose callers are other machines: a
     * test that attacks from this JVM shares the cores, and its work must not pass for the
     * server's (a GC pause stretched because the attacker held the CPU).
     */
    public IdmintProcesses aheadOfCallers() {
        this.aheadOfCallers = "root".equals(System.getProperty("user.name"));
        return this;
    }

    /**
     * The environment that runs a JVM {@code offset} away from the real wall clock (libfaketime),
     * with the monotonic clock left real and libfaketime's glibc workaround off (see
     * StaticFaultIT).
     */
    public static Map<String, String> faketime(String offset) {
        Path lib = FAKETIME_LIBS.stream().filter(Files::exists).findFirst().orElse(null);
        assertThat(lib).as("libfaketime.so.1 in %s: install the Debian package faketime "
                + "(scripts/test does)", FAKETIME_LIBS).isNotNull();
        return Map.of("LD_PRELOAD", lib.toString(), "FAKETIME", offset,
                "FAKETIME_DONT_FAKE_MONOTONIC", "1", "FAKETIME_FORCE_MONOTONIC_FIX", "0");
    }

    // ------------------------------------------------------------------ serve

    /** A running {@code idmint serve}. */
    public final class Node {
        public final String name;
        public final Process process;
        public final String banner;
        public final int port;
        /** The worker the banner named, or -1 when it had none yet (or named several). */
        public final int bannerWorker;
        /** The workers the banner named: one, or several with {@code --workers}. */
        public final String bannerWorkers;
        public final int grpcPort;
        public final Http http;
        public final Path stderr;

        private Node(String name, Process process, String banner, Path stderr) {
            this.name = name;
            this.process = process;
            this.banner = banner;
            this.stderr = stderr;
            Matcher m = BANNER.matcher(banner);
            assertThat(m.matches()).as("banner of %s: %s", name, banner).isTrue();
            this.port = Integer.parseInt(m.group(1));
            this.bannerWorker = m.group(4).matches("\\d+") ? Integer.parseInt(m.group(4)) : -1;
            this.bannerWorkers = m.group(4);
            this.grpcPort = Integer.parseInt(m.group(2));
            this.http = new Http(port);
        }

        public long pid() {
            return process.pid();
        }

        /** /health/ready: 200 with the status when it can issue, 503 with it when not. */
        public Http.Response ready() {
            return http.get("/health/ready");
        }

        /**
         * The worker /health/ready names once it answers 200 (the banner names none when the
         * first claim outlasts the registry's call timeout: the node claims on, listening).
         */
        public long readyWorker(Duration timeout) throws InterruptedException {
            awaitReady(timeout);
            return ((Number) ready().json().get("worker")).longValue();
        }

        /** Asks for {@code count} IDs once, whatever the answer. */
        public Http.Response tryMint(int count) {
            return http.get("/v1/ids?count=" + count);
        }

        /** {@code count} IDs in requests of at most 1000; every answer must be a 200. */
        public List<Long> mint(int count) {
            List<Long> ids = new ArrayList<>(count);
            while (ids.size() < count) {
                int n = Math.min(1000, count - ids.size());
                Http.Response r = tryMint(n);
                assertThat(r.status()).as(describe("/v1/ids?count=" + n + " on " + name
                        + " answered " + r.body())).isEqualTo(200);
                for (Object o : (List<?>) r.json().get("ids")) {
                    ids.add(Long.parseLong((String) o));
                }
            }
            assertThat(ids).as(describe("IDs from " + name)).hasSize(count);
            return ids;
        }

        /**
         * Polls /health/ready until it answers 200; fails after {@code timeout} with the last
         * answer and the processes' stderr.
         *
         * @return how long it took, in ms
         */
        public long awaitReady(Duration timeout) throws InterruptedException {
            return await(timeout, "node " + name + " ready", () -> ready().status() == 200,
                    () -> ready().body());
        }

        /** Polls until /health/ready is a 503 whose body contains {@code text}. */
        public long awaitNotReady(Duration timeout, String text) throws InterruptedException {
            return await(timeout, "node " + name + " not ready with '" + text + "'", () -> {
                Http.Response r = ready();
                return r.status() == 503 && r.body().contains(text);
            }, () -> ready().body());
        }

        /** Sends a signal by name ({@code STOP}, {@code CONT}) with kill(1). */
        public void signal(String signal) throws IOException, InterruptedException {
            ChildProcess.Result kill = ChildProcess.run(new ProcessBuilder("kill", "-" + signal,
                    Long.toString(pid())).redirectErrorStream(true), Duration.ofSeconds(15));
            assertThat(kill.exitCode()).as("kill -%s %d: %s", signal, pid(), kill.output())
                    .isZero();
        }

        /** SIGTERM, then the exit code, which must come within 15 s. */
        public int sigterm() throws InterruptedException {
            process.destroy();
            assertThat(process.waitFor(15, TimeUnit.SECONDS))
                    .as(describe(name + " exited after SIGTERM")).isTrue();
            return process.exitValue();
        }

        /** SIGKILL: no shutdown hook, no release. */
        public void kill9() throws InterruptedException {
            assertThat(process.toHandle().destroyForcibly()).as("SIGKILL to " + name).isTrue();
            assertThat(process.waitFor(15, TimeUnit.SECONDS)).as(name + " died").isTrue();
            assertThat(process.exitValue()).as("exit status of a SIGKILLed JVM")
                    .isEqualTo(128 + 9);
        }

        public String stderr() {
            return read(stderr);
        }
    }

    /**
     * Starts {@code idmint serve --http-port 0 --grpc-port 0 --bind 127.0.0.1 args…} and waits
     * for its banner (which it prints once it listens and its worker claim has answered, ready
     * or not).
     */
    public Node serve(String name, Map<String, String> env, String... args)
            throws IOException, InterruptedException {
        return serve(name, dataDir(name), env, args);
    }

    /** The data directory {@link #serve(String, Map, String...)} gives the node {@code name}. */
    public Path dataDir(String name) {
        return dir.resolve("data-" + name);
    }

    /**
     * As {@link #serve(String, Map, String...)}, on the data directory {@code data}: a restart
     * of a node on the directory it had.
     */
    public Node serve(String name, Path data, Map<String, String> env, String... args)
            throws IOException, InterruptedException {
        return spawn(name, data, env, args).awaitBanner(Duration.ofSeconds(60));
    }

    /** A {@code serve} process started, whose banner is not awaited yet. */
    public final class Spawned {
        public final String name;
        public final Process process;
        public final Path stderr;
        private final BlockingQueue<String> lines;

        private Spawned(String name, Process process, Path stderr, BlockingQueue<String> lines) {
            this.name = name;
            this.process = process;
            this.stderr = stderr;
            this.lines = lines;
        }

        /** The banner, which comes once the node listens and its worker claim has answered. */
        public Node awaitBanner(Duration timeout) throws InterruptedException {
            String banner = lines.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
            assertThat(banner).as(describe("banner of " + name + " (alive: "
                    + process.isAlive() + "); its stderr:\n" + read(stderr))).isNotNull();
            Node node = new Node(name, process, banner, stderr);
            nodes.add(node);
            return node;
        }
    }

    /**
     * Starts {@code idmint serve} as {@link #serve(String, Path, Map, String...)} does, without
     * waiting for its banner: a test that gives the ports itself asks the node before it.
     */
    public Spawned spawn(String name, Path data, Map<String, String> env, String... args)
            throws IOException {
        List<String> all = new ArrayList<>(List.of("serve", "--bind", "127.0.0.1", "--data-dir",
                data.toString()));
        for (String port : List.of("--http-port", "--grpc-port")) {
            if (!Arrays.asList(args).contains(port)) {
                all.addAll(List.of(port, "0"));
            }
        }
        all.addAll(Arrays.asList(args));
        Path stderr = dir.resolve(name + ".err");
        Process p = builder(env, all).redirectError(stderr.toFile()).start();
        started.add(p);
        return new Spawned(name, p, stderr, ChildProcess.stdoutLines(p, name));
    }

    /** Starts several {@code serve} nodes at once and waits for all their banners. */
    public List<Node> serveAll(Map<String, String> env, List<String> names, String... args)
            throws IOException, InterruptedException {
        List<Node> out = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        List<Throwable> failures = Collections.synchronizedList(new ArrayList<>());
        Node[] slots = new Node[names.size()];
        for (int i = 0; i < names.size(); i++) {
            int k = i;
            Thread t = new Thread(() -> {
                try {
                    slots[k] = serve(names.get(k), env, args);
                } catch (Throwable e) {
                    failures.add(e);
                }
            });
            t.start();
            threads.add(t);
        }
        for (Thread t : threads) {
            t.join();
        }
        if (!failures.isEmpty()) {
            AssertionError e = new AssertionError("a node did not start", failures.get(0));
            failures.stream().skip(1).forEach(e::addSuppressed);
            throw e;
        }
        out.addAll(Arrays.asList(slots));
        return out;
    }

    // ------------------------------------------------------------------ one-shot commands

    /** The outcome of a command run to its end. */
    public record Run(String name, int exitCode, String out, String err) {
        /** The lines of stdout as IDs. */
        public List<Long> ids() {
            List<Long> ids = new ArrayList<>();
            for (String line : out.split("\n")) {
                if (!line.isEmpty()) {
                    ids.add(Long.parseLong(line));
                }
            }
            return ids;
        }
    }

    /** Runs one command to its end (at most 60 s), stdout to a file. */
    public Run run(String name, Map<String, String> env, String... args)
            throws IOException, InterruptedException {
        Path out = dir.resolve(name + ".out");
        Path err = dir.resolve(name + ".err");
        Process p = builder(env, Arrays.asList(args)).redirectOutput(out.toFile())
                .redirectError(err.toFile()).start();
        started.add(p);
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("idmint " + String.join(" ", args) + " did not exit "
                    + "within 60 s; stderr: " + read(err));
        }
        return new Run(name, p.exitValue(), read(out), read(err));
    }

    /** Starts one command with stdout to {@code name.out} and stderr to {@code name.err}. */
    public Process start(String name, Map<String, String> env, String... args)
            throws IOException {
        Process p = builder(env, Arrays.asList(args)).redirectOutput(dir.resolve(name + ".out")
                .toFile()).redirectError(dir.resolve(name + ".err").toFile()).start();
        started.add(p);
        return p;
    }

    /** The file {@link #start} sends a command's stdout to. */
    public Path stdoutFile(String name) {
        return dir.resolve(name + ".out");
    }

    /**
     * Starts one command with stdout on a pipe that nobody reads yet, so a process that prints
     * more than the pipe holds blocks in its write, still alive.
     */
    public Process startPiped(String name, Map<String, String> env, String... args)
            throws IOException {
        Process p = builder(env, Arrays.asList(args))
                .redirectError(dir.resolve(name + ".err").toFile()).start();
        started.add(p);
        return p;
    }

    /** Reads a stream to its end. */
    public static String drain(InputStream in) throws IOException {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        in.transferTo(buf);
        return buf.toString(StandardCharsets.UTF_8);
    }

    public String stderrOf(String name) {
        return read(dir.resolve(name + ".err"));
    }

    // ------------------------------------------------------------------ helpers

    /**
     * A lazy assertion description: {@code what}, then the stderr of every serve node this
     * started (the tail of each), read only when the assertion fails.
     */
    public Supplier<String> describe(String what) {
        return () -> what + "\n" + context();
    }

    /** The tail of every serve node's stderr. */
    public String context() {
        StringBuilder b = new StringBuilder();
        synchronized (nodes) {
            for (Node n : nodes) {
                b.append("--- stderr of ").append(n.name).append(" (pid ").append(n.pid())
                        .append(n.process.isAlive() ? ", alive" : ", exit "
                                + n.process.exitValue()).append("; banner: ").append(n.banner)
                        .append(")\n").append(tail(n.stderr(), 40)).append('\n');
            }
        }
        return b.toString();
    }

    /**
     * Polls {@code condition} every 50 ms until it holds; fails after {@code timeout} (times
     * {@link io.idmint.testkit.TestTime#SCALE}) with
     * {@code last} (the last observation) and the processes' stderr.
     *
     * @return how long it took, in ms
     */
    public long await(Duration timeout, String what, Supplier<Boolean> condition,
            Supplier<String> last) throws InterruptedException {
        long start = System.nanoTime();
        Duration scaled = io.idmint.testkit.TestTime.scaled(timeout);
        long deadline = start + scaled.toNanos();
        while (!condition.get()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not within " + scaled.toMillis() + " ms: " + what
                        + "; last seen: " + last.get() + "\n" + context());
            }
            Thread.sleep(50);
        }
        return (System.nanoTime() - start) / 1_000_000;
    }

    private ProcessBuilder builder(Map<String, String> env, List<String> args) {
        List<String> command = new ArrayList<>();
        if (aheadOfCallers) {
            command.addAll(List.of("nice", "-n", "-20"));
        }
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        // The quick-starting processes map the class-data archive the build puts beside the
        // jar, as the launcher does: a third less CPU per start (0.51 s to 0.34 s for `next`
        // here), across the hundreds of processes the suite starts. Processes started with
        // other options (AS_SHIPPED: memory measured) run without it.
        Path archive = jar.resolveSibling("idmint.jsa");
        if (jvmOptions == JVM_OPTIONS && Files.isRegularFile(archive)) {
            command.addAll(List.of("-XX:SharedArchiveFile=" + archive, "-Xshare:auto"));
        }
        command.addAll(jvmOptions);
        command.add("-jar");
        command.add(jar.toString());
        command.addAll(args);
        ProcessBuilder pb = new ProcessBuilder(command).directory(dir.toFile());
        pb.environment().keySet().removeIf(k -> k.startsWith("IDMINT_")
                || k.startsWith("FAKETIME") || k.equals("LD_PRELOAD")
                || k.startsWith("JAVA_TOOL_OPTIONS") || k.startsWith("_JAVA_OPTIONS"));
        pb.environment().putAll(env);
        return pb;
    }

    private static String read(Path file) {
        try {
            return Files.exists(file) ? Files.readString(file) : "(none)";
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String tail(String text, int lines) {
        String[] all = text.split("\n");
        return String.join("\n", Arrays.asList(all).subList(Math.max(0, all.length - lines),
                all.length));
    }

    /**
     * Kills every process started here that is still alive (SIGKILL also ends a stopped one),
     * and waits for each to be gone.
     */
    @Override
    public void close() throws InterruptedException {
        List<Process> all;
        synchronized (started) {
            all = new ArrayList<>(started);
        }
        for (Process p : all) {
            if (p.isAlive()) {
                p.toHandle().destroyForcibly();
            }
        }
        for (Process p : all) {
            if (!p.waitFor(15, TimeUnit.SECONDS)) {
                throw new AssertionError("process " + p.pid() + " did not die after SIGKILL");
            }
        }
    }
}

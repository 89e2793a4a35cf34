package io.idmint.server.harness;

import static org.assertj.core.api.Assertions.assertThat;

import io.idmint.testkit.TestTime;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * One client of another language (docs/clients.md) under test: its driver program, a child
 * process spoken to in JSON lines (a command a line on its stdin; a reply or an event a line on
 * its stdout). The protocol is the clients' one contract with the server's test tree, so a
 * scenario is written once and run against every client ({@link Lang}):
 *
 * <ul>
 *   <li>{@code connect} (endpoints and options), {@code next}, {@code segment}, {@code serial},
 *       {@code decode}, {@code stats}, {@code close}: each answers {@code {"ok":true,…}} or
 *       {@code {"ok":false,"error":KIND,"message":…[,"failures":{endpoint:text}]}}, KIND one of
 *       {@code invalid-argument}, {@code unavailable}, {@code closed}, {@code other};</li>
 *   <li>{@code draw}: concurrent callers take IDs and stop at gates until {@code open}; the
 *       driver says {@code {"event":"gate","gate":i}} when all wait at gate i and
 *       {@code {"event":"drawn",…}} at the end, each caller's IDs in {@code caller-K.bin}.</li>
 * </ul>
 */
public final class ClientDriver implements AutoCloseable {

    /** The clients, with how their driver is built (once per JVM) and started. */
    public enum Lang {
        NODE, PYTHON, GO;

        private volatile List<String> command;

        /** The directory of the client, {@code clients/<lang>} of the checkout. */
        public Path dir() {
            return Path.of("..", "clients", name().toLowerCase()).toAbsolutePath().normalize();
        }

        /** Builds what the driver needs (once per JVM); the command that starts it. */
        public synchronized List<String> command() throws IOException, InterruptedException {
            if (command == null) {
                command = switch (this) {
                    // Plain ES modules: the driver runs from the sources, nothing to build.
                    case NODE -> List.of(NodeTools.node(), dir().resolve("test/driver.mjs")
                            .toString());
                    case PYTHON -> List.of("/usr/bin/python3", "-u",
                            dir().resolve("tests/driver.py").toString());
                    case GO -> {
                        Path bin = Path.of("target", "clients", "go-driver").toAbsolutePath();
                        Files.createDirectories(bin.getParent());
                        run(dir(), Duration.ofMinutes(3), "go", "build", "-o", bin.toString(),
                                "./internal/driver");
                        yield List.of(bin.toString());
                    }
                };
            }
            return command;
        }

        /** The environment of every command of this language: offline, no telemetry. */
        public Map<String, String> environment() {
            return switch (this) {
                case PYTHON -> Map.of("PYTHONPATH", dir().resolve("src").toString(),
                        "PYTHONDONTWRITEBYTECODE", "1");
                case GO -> Map.of("GOPROXY", "off", "GOFLAGS", "-mod=mod", "GOTOOLCHAIN",
                        "local", "GOTELEMETRY", "off");
                case NODE -> Map.of();
            };
        }

        /** Runs a command of this language's toolchain in {@code dir}; its output if it exits 0. */
        public String run(Path in, Duration timeout, String... command)
                throws IOException, InterruptedException {
            ProcessBuilder pb = new ProcessBuilder(command).directory(in.toFile());
            pb.environment().putAll(environment());
            ChildProcess.Result r = ChildProcess.run(pb, TestTime.scaled(timeout));
            assertThat(r.exitCode()).as("%s in %s: %s", String.join(" ", command), in,
                    r.output()).isZero();
            return r.output();
        }
    }

    private final Lang lang;
    private final Process process;
    private final BlockingQueue<String> lines;
    private final OutputStream in;
    private final Path stderr;
    private final Deque<Map<String, Object>> events = new ArrayDeque<>();

    private ClientDriver(Lang lang, Process process, Path stderr) {
        this.lang = lang;
        this.process = process;
        this.stderr = stderr;
        this.in = process.getOutputStream();
        this.lines = ChildProcess.stdoutLines(process, lang + " driver");
    }

    /** Starts the driver of {@code lang}, its stderr kept in {@code dir}. */
    public static ClientDriver start(Lang lang, Path dir) throws IOException,
            InterruptedException {
        Files.createDirectories(dir);
        Path err = dir.resolve(lang.name().toLowerCase() + "-driver.err");
        ProcessBuilder pb = new ProcessBuilder(lang.command()).directory(dir.toFile())
                .redirectError(err.toFile());
        pb.environment().putAll(lang.environment());
        return new ClientDriver(lang, pb.start(), err);
    }

    public Lang lang() {
        return lang;
    }

    /** Sends a command and returns its reply (ok or not); events that come first are kept. */
    public Map<String, Object> call(Map<String, Object> command) throws IOException,
            InterruptedException {
        send(command);
        while (true) {
            Map<String, Object> line = next(Duration.ofSeconds(120), "a reply to " + command);
            if (line.containsKey("event")) {
                events.add(line);
            } else {
                return line;
            }
        }
    }

    /** Sends a command and returns its reply, which must be ok. */
    public Map<String, Object> ok(Map<String, Object> command) throws IOException,
            InterruptedException {
        Map<String, Object> reply = call(command);
        assertThat(reply.get("ok")).as(describe(command + " answered " + reply)).isEqualTo(true);
        return reply;
    }

    /** Sends a command whose reply must be the error {@code kind}; the reply. */
    public Map<String, Object> refused(Map<String, Object> command, String kind)
            throws IOException, InterruptedException {
        Map<String, Object> reply = call(command);
        assertThat(reply.get("ok")).as(describe(command + " answered " + reply)).isEqualTo(false);
        assertThat(reply.get("error")).as(describe(command + " answered " + reply))
                .isEqualTo(kind);
        return reply;
    }

    /** Waits for the event named {@code event} (kept ones first); the event. */
    public Map<String, Object> awaitEvent(String event, Duration timeout) throws IOException,
            InterruptedException {
        for (var it = events.iterator(); it.hasNext(); ) {
            Map<String, Object> e = it.next();
            if (event.equals(e.get("event"))) {
                it.remove();
                return e;
            }
        }
        while (true) {
            Map<String, Object> line = next(timeout, "the event " + event);
            if (event.equals(line.get("event"))) {
                return line;
            }
            events.add(line);
        }
    }

    /** {@code connect} with the endpoints and options (null options are left out). */
    public static Map<String, Object> connect(List<String> endpoints, Object... options) {
        Map<String, Object> c = new LinkedHashMap<>();
        c.put("op", "connect");
        c.put("endpoints", endpoints);
        for (int i = 0; i < options.length; i += 2) {
            if (options[i + 1] != null) {
                c.put((String) options[i], options[i + 1]);
            }
        }
        return c;
    }

    /** A command of {@code op} with the given fields. */
    public static Map<String, Object> op(String op, Object... fields) {
        Map<String, Object> c = new LinkedHashMap<>();
        c.put("op", op);
        for (int i = 0; i < fields.length; i += 2) {
            c.put((String) fields[i], fields[i + 1]);
        }
        return c;
    }

    /** The IDs of {@code next} or the values of {@code segment} as numbers. */
    @SuppressWarnings("unchecked")
    public static long[] longs(Map<String, Object> reply, String field) {
        List<String> texts = (List<String>) reply.get(field);
        long[] out = new long[texts.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = Long.parseUnsignedLong(texts.get(i));
        }
        return out;
    }

    /** What went wrong, with the driver's stderr, for an assertion's description. */
    public String describe(String what) {
        String err;
        try {
            err = Files.exists(stderr) ? Files.readString(stderr) : "";
        } catch (IOException e) {
            err = e.toString();
        }
        if (err.length() > 4000) {
            err = "…" + err.substring(err.length() - 4000);
        }
        return lang + " driver: " + what + (err.isBlank() ? "" : "\n--- its stderr:\n" + err);
    }

    @Override
    public void close() throws InterruptedException {
        try {
            in.close();
        } catch (IOException e) {
            // gone already
        }
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            ChildProcess.killTree(process.toHandle());
        }
    }

    private void send(Map<String, Object> command) throws IOException {
        StringBuilder sb = new StringBuilder();
        write(sb, command);
        in.write(sb.append('\n').toString().getBytes(StandardCharsets.UTF_8));
        in.flush();
    }

    @SuppressWarnings("unchecked")
    private Map<String, Object> next(Duration timeout, String what) throws InterruptedException {
        String line = lines.poll(TestTime.scaled(timeout).toMillis(), TimeUnit.MILLISECONDS);
        if (line == null) {
            throw new AssertionError(describe("no line within " + timeout + " waiting for "
                    + what + (process.isAlive() ? "" : "; it exited with "
                    + process.exitValue())));
        }
        try {
            return Http.object(line);
        } catch (RuntimeException e) {
            throw new AssertionError(describe("wrote a line that is not a JSON object: "
                    + line), e);
        }
    }

    private static void write(StringBuilder sb, Object v) {
        if (v instanceof Map<?, ?> m) {
            sb.append('{');
            String sep = "";
            for (Map.Entry<?, ?> e : m.entrySet()) {
                sb.append(sep);
                write(sb, e.getKey().toString());
                sb.append(':');
                write(sb, e.getValue());
                sep = ",";
            }
            sb.append('}');
        } else if (v instanceof List<?> l) {
            sb.append('[');
            for (int i = 0; i < l.size(); i++) {
                sb.append(i > 0 ? "," : "");
                write(sb, l.get(i));
            }
            sb.append(']');
        } else if (v instanceof String s) {
            sb.append('"');
            for (char c : s.toCharArray()) {
                if (c == '"' || c == '\\') {
                    sb.append('\\').append(c);
                } else if (c < 0x20) {
                    sb.append(String.format("\\u%04x", (int) c));
                } else {
                    sb.append(c);
                }
            }
            sb.append('"');
        } else {
            sb.append(v); // numbers and booleans
        }
    }

    /** Every ID of one caller's file, in the order taken. */
    public static long[] ids(Path file) throws IOException {
        byte[] b = Files.readAllBytes(file);
        ByteBuffer buf = ByteBuffer.wrap(b);
        long[] out = new long[b.length / Long.BYTES];
        for (int i = 0; i < out.length; i++) {
            out[i] = buf.getLong();
        }
        return out;
    }

    /** The drawn event's per-caller files. */
    public static List<Path> callerFiles(Path out, int callers) {
        List<Path> files = new ArrayList<>();
        for (int k = 0; k < callers; k++) {
            files.add(out.resolve("caller-" + k + ".bin"));
        }
        return files;
    }
}

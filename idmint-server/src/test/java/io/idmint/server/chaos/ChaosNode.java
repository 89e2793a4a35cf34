package io.idmint.server.chaos;

import io.idmint.FencedUuidV7;
import io.idmint.Layout;
import io.idmint.formats.UuidV7;
import io.idmint.server.harness.IdmintProcesses;
import io.idmint.server.harness.IdmintProcesses.Node;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One node slot of a chaos run: the {@code idmint serve} process now in it (a restart puts a
 * new process, a new holder, in the same slot on the same data directory), its wall clock (a
 * libfaketime timestamp file the harness rewrites), a client thread drawing IDs over HTTP and a
 * thread polling {@code /health/ready}, both recording into the {@link ChaosOracle}.
 */
public final class ChaosNode {

    /** A process in the slot and its holder index in the oracle. */
    private record Incarnation(Node node, int holder) {
    }

    private static final long POLL_MILLIS = 250;

    public final String name;
    private final IdmintProcesses procs;
    private final ChaosOracle oracle;
    private final ChaosOracle.Track track;
    private final Path clockFile;
    private final List<String> args;
    private final int count;
    private final long intervalMillis;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(1)).build();
    private volatile Incarnation current;
    private volatile boolean running = true;
    private volatile long lastId;
    private int restarts;
    private Thread load;
    private Thread poller;

    public ChaosNode(String name, IdmintProcesses procs, ChaosOracle oracle, Path dir,
            List<String> args, int count, long intervalMillis) throws IOException {
        this.name = name;
        this.procs = procs;
        this.oracle = oracle;
        this.track = oracle.track(name);
        this.clockFile = dir.resolve(name + ".clock");
        this.args = args;
        this.count = count;
        this.intervalMillis = intervalMillis;
        setClock("+0");
    }

    private Map<String, String> env() {
        return clockEnv(clockFile);
    }

    /**
     * The environment of a process whose wall clock follows {@code clockFile} (an offset such
     * as {@code +90s}): libfaketime re-reads the file at most once a second
     * (FAKETIME_CACHE_DURATION), the monotonic clock stays real, and libfaketime's glibc
     * workaround is off (as in IdmintProcesses.faketime). FaketimeClockIT pins both clocks.
     */
    public static Map<String, String> clockEnv(Path clockFile) {
        Map<String, String> env = new HashMap<>(IdmintProcesses.faketime("+0"));
        env.remove("FAKETIME");
        env.put("FAKETIME_TIMESTAMP_FILE", clockFile.toString());
        env.put("FAKETIME_CACHE_DURATION", "1");
        return env;
    }

    /** Sets this node's wall clock offset, libfaketime style: {@code +0}, {@code -1h}. */
    public void setClock(String offset) throws IOException {
        setClock(clockFile, offset);
    }

    /** Writes {@code offset} to {@code clockFile} at once (a rename), for libfaketime. */
    public static void setClock(Path clockFile, String offset) throws IOException {
        Path tmp = clockFile.resolveSibling(clockFile.getFileName() + ".tmp");
        Files.writeString(tmp, offset + "\n");
        Files.move(tmp, clockFile, java.nio.file.StandardCopyOption.ATOMIC_MOVE,
                java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    }

    /** Starts the process (again, after a kill), and the load and poller threads if not yet. */
    public void start(String... extra) throws IOException, InterruptedException {
        String process = restarts == 0 ? name : name + "." + restarts;
        restarts++;
        List<String> all = new java.util.ArrayList<>(args);
        all.addAll(List.of(extra));
        Node node = procs.serve(process, procs.dataDir(name), env(), all.toArray(String[]::new));
        current = new Incarnation(node, oracle.holder(process));
        if (load == null) {
            load = new Thread(this::load, "chaos-load-" + name);
            poller = new Thread(this::poll, "chaos-ready-" + name);
            load.setDaemon(true);
            poller.setDaemon(true);
            load.start();
            poller.start();
        }
    }

    public Node node() {
        return current.node();
    }

    /** The worker of the last ID this node issued, or -1 before any. */
    public int lastWorker() {
        long id = lastId;
        return id == 0 ? -1 : (int) Layout.SNOWFLAKE.get(id, Layout.Field.WORKER);
    }

    /** Whether the last readiness poll answered 200. */
    public boolean ready() {
        synchronized (track.polls) {
            return !track.polls.isEmpty() && track.polls.get(track.polls.size() - 1)
                    .status() == 200;
        }
    }

    /** Stops the threads (the process stays as it is). */
    public void stopThreads() throws InterruptedException {
        running = false;
        if (load != null) {
            load.join(10_000);
            poller.join(10_000);
        }
    }

    private void load() {
        long[] ids = new long[count];
        boolean fenced = false;
        while (running) {
            Incarnation inc = current;
            long start = System.currentTimeMillis();
            int status;
            int n = 0;
            // Every other call takes fenced UUIDv7s, checked as the IDs they carry.
            fenced = !fenced;
            try {
                HttpResponse<String> r = send(inc.node(), (fenced ? "/api/v1/fenced-uuids"
                        : "/v1/ids") + "?count=" + count, Duration.ofSeconds(3));
                status = r.statusCode();
                if (status == 200) {
                    n = fenced ? parseFencedUuids(r.body(), ids) : parseIds(r.body(), ids);
                }
            } catch (IOException e) {
                status = 0;
            }
            long end = System.currentTimeMillis();
            if (n > 0) {
                lastId = ids[n - 1];
                oracle.ids(track, inc.holder(), ids, n, end);
            }
            track.calls.add(new ChaosOracle.Call(inc.holder(), start, end, status));
            pace(start + intervalMillis);
        }
    }

    private void poll() {
        while (running) {
            long start = System.currentTimeMillis();
            int status;
            try {
                status = send(current.node(), "/health/ready", Duration.ofSeconds(2))
                        .statusCode();
            } catch (IOException e) {
                status = 0;
            }
            track.polls.add(new ChaosOracle.Poll(System.currentTimeMillis(), status));
            pace(start + POLL_MILLIS);
        }
    }

    private HttpResponse<String> send(Node node, String path, Duration timeout)
            throws IOException {
        HttpRequest req = HttpRequest.newBuilder(URI.create(node.http.base() + path))
                .timeout(timeout).GET().build();
        try {
            return http.send(req, HttpResponse.BodyHandlers.ofString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
    }

    /** The client's pace: the next call no earlier than {@code untilMillis}. */
    private static void pace(long untilMillis) {
        long wait = untilMillis - System.currentTimeMillis();
        if (wait > 0) {
            try {
                Thread.sleep(wait);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** The IDs of {@code {"ids":["1","2",…]}}: every run of digits in the body. */
    /** The IDs the fenced UUIDs of a {@code {"uuids":[…]}} body carry, in order. */
    static int parseFencedUuids(String body, long[] into) {
        int n = 0;
        for (String part : body.split("\"")) {
            if (part.length() == 36 && part.charAt(8) == '-' && n < into.length) {
                into[n++] = FencedUuidV7.idOf(UuidV7.parse(part), Layout.SNOWFLAKE);
            }
        }
        return n;
    }

    public static int parseIds(String body, long[] into) {
        int n = 0;
        long v = 0;
        boolean in = false;
        for (int i = 0; i < body.length(); i++) {
            char c = body.charAt(i);
            if (c >= '0' && c <= '9') {
                v = v * 10 + (c - '0');
                in = true;
            } else if (in && n < into.length) {
                into[n++] = v;
                v = 0;
                in = false;
            }
        }
        return n;
    }
}

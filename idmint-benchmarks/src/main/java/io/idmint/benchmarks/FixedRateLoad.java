package io.idmint.benchmarks;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import org.HdrHistogram.Histogram;

/**
 * An open-model HTTP load generator at fixed request rates, with latency free of coordinated
 * omission: what wrk2 does and Debian's {@code wrk} cannot ({@code wrk} has no {@code -R}).
 *
 * <p>Request {@code i} of a thread is <em>scheduled</em> for {@code start + i / rate}; it is sent
 * then on a free keep-alive connection, or as soon as one is free, and its latency is measured
 * from the scheduled time to the last byte of the response. A server that stalls therefore shows
 * the full wait of every request that should have been sent during the stall, instead of the one
 * slow request a closed-loop tool like {@code wrk} records (Gil Tene, "How NOT to Measure
 * Latency"; wrk2's README). Requests scheduled during a warm-up are sent but not recorded.
 *
 * <p>Why not an HTTP client library: the generator shares the machine with the server under
 * test, so it must cost no more per request than wrk does, or a rate the server could keep would
 * overload the generator and its lag would be measured as the server's latency. Each of
 * {@code threads} threads drives {@code connections / threads} HTTP/1.1 connections (no
 * pipelining, like wrk) with one NIO selector, writes a constant request from a direct buffer,
 * and reads a response into a direct buffer by its {@code content-length}: no object per request.
 * It collects its own garbage before each run, so that no pause of its own, which open loop would
 * measure as the server's latency, falls inside one.
 *
 * <p>Between sends a thread waits one of two ways ({@code WAIT}):
 *
 * <ul>
 *   <li>{@code park} (default): in {@code select} when the next send is over 1.5 ms away, else it
 *       polls its connections and parks for at most 50 µs, so its own timing error stays far
 *       below the 1 ms being measured while leaving most of the CPU to the server;
 *   <li>{@code spin}: it polls its connections without ever sleeping, so it sends on time to
 *       within a poll and never pays a wake-up, yielding the CPU after each poll (in short
 *       runs at 8,000/s, 7 of 16 without the yield had a 100 ms stall, none of 16 with it; full
 *       runs still have them: docs/benchmarks.md, "How a run is made, and why"). For a
 *       generator with CPUs of its own ({@code taskset}, as {@code scripts/bench http} runs it
 *       with {@code BENCH_LOAD_CPUS}): on CPUs it shares with the server it would take their
 *       time.
 * </ul>
 *
 * <p>Beside the latency it prints {@code achieved} (responses per second of the measured span),
 * {@code lag99} (p99 of how late a request went on the wire after its scheduled time: the
 * generator's thread ran late, or all its connections were waiting on the server),
 * {@code svc99} (p99 from send to response, what a closed-loop tool would report), and
 * {@code hiccup99} and {@code hiccupmax}: how late a thread that sleeps 1 ms at a time woke up
 * (jHiccup's measure of the stalls every thread of this JVM saw, whatever the server does). An
 * achieved rate below the asked one means the generator, or the CPU it shares, was the limit; a
 * p99 far above svc99 means the tail is requests that waited to be sent, not slow responses; a
 * hiccup99 close to lag99 means they waited for the machine, not for the server.
 *
 * <p>Several rates run one after another in one JVM (the JIT is warm for all), each with new
 * connections and its own warm-up. Given several URLs (idmint and the bare server, say), each
 * rate runs {@code ROUNDS} rounds in which every URL gets one run, and the first URL of a round
 * rotates (ABAB... for two): the runs that are compared are seconds apart, so a machine whose
 * speed drifts over minutes (a shared VM) slows both alike, and neither always goes first. Run
 * ({@code scripts/bench http} runs it against idmint and the bare server):
 *
 * <pre>
 * java -cp idmint-benchmarks/target/benchmarks.jar io.idmint.benchmarks.FixedRateLoad \
 *     URL[,URL...] RATE[,RATE...] \
 *     [SECONDS [WARMUP_SECONDS [CONNECTIONS [THREADS [park|spin [ROUNDS]]]]]]
 * </pre>
 *
 * <p>A RATE of {@code max} runs closed loop instead, as wrk does: each connection sends its next
 * request as soon as it has its answer, so {@code achieved} is the most this generator and the
 * server get through together (its latency is then from the send). A RATE of {@code N%} is N
 * percent of the first URL's median {@code achieved} over the rounds of the last {@code max}
 * before it: {@code max,75%,90%} finds the peak of this generator with the first server, then
 * loads both at fractions of it. On shared cores the peak depends on the generator's own cost,
 * so a fraction of another tool's peak (wrk's) can be more than this generator gets through.
 *
 * <p>Defaults: 10 s, 2 s (per run), 64 connections, 2 threads, park, 1 round. It prints one line
 * per run: {@code rate R achieved A ok N errors E p50 .. p90 .. p99 .. p999 .. max .. lag99 ..
 * svc99 .. hiccup99 .. hiccupmax .. ms from F to T} (in ms; F and T are the wall clock in Unix
 * ms at the start and the end of the measured span). With several runs per rate each line starts
 * with {@code round K target T } (T counts the URLs from 0), and after the rounds a line per URL
 * adds them all up: {@code round all target T rate ...}, without F and T. It exits 1 if any
 * request failed or was not a 200.
 */
public final class FixedRateLoad {

    private static final long HIGHEST_NANOS = TimeUnit.MINUTES.toNanos(1);
    /** Park mode: a next send further away than this waits in {@code select}. */
    private static final long SELECT_NANOS = 1_500_000L;
    /** Park mode: the longest park between polls. */
    private static final long PARK_NANOS = 50_000L;

    private FixedRateLoad() {}

    public static void main(String[] args) throws Exception {
        if (args.length < 2 || args.length > 8) {
            System.err.println("usage: FixedRateLoad URL[,URL...] RATE[,RATE...]"
                    + " [SECONDS [WARMUP [CONNECTIONS [THREADS [park|spin [ROUNDS]]]]]]");
            System.exit(2);
        }
        List<Target> targets = new ArrayList<>();
        for (String u : args[0].split(",")) {
            targets.add(Target.of(u));
        }
        double seconds = args.length > 2 ? Double.parseDouble(args[2]) : 10;
        double warmup = args.length > 3 ? Double.parseDouble(args[3]) : 2;
        int connections = args.length > 4 ? Integer.parseInt(args[4]) : 64;
        int threads = args.length > 5 ? Integer.parseInt(args[5]) : 2;
        String wait = args.length > 6 ? args[6] : "park";
        if (!wait.equals("park") && !wait.equals("spin")) {
            throw new IllegalArgumentException("WAIT must be park or spin, got " + wait);
        }
        int rounds = args.length > 7 ? Integer.parseInt(args[7]) : 1;
        if (rounds < 1) {
            throw new IllegalArgumentException("ROUNDS must be at least 1, got " + rounds);
        }

        long failed = 0;
        /** The first URL's median achieved rate over the rounds of the last max, or 0. */
        double peak = 0;
        for (String r : args[1].split(",")) {
            double rate = rate(r, peak);
            Result[] all = new Result[targets.size()];
            double[] firsts = new double[rounds];
            for (int round = 1; round <= rounds; round++) {
                // Round k starts with target k - 1 (mod n): ABAB... for two, so neither
                // always runs first or after the other.
                for (int j = 0; j < targets.size(); j++) {
                    int t = (round - 1 + j) % targets.size();
                    Result one = run(targets.get(t), rate, seconds, warmup, connections,
                            threads, wait.equals("spin"));
                    one.print(rounds == 1 && targets.size() == 1 ? ""
                            : "round " + round + " target " + t + " ", rate);
                    failed += one.errors;
                    all[t] = (all[t] == null ? new Result() : all[t]).add(one);
                    if (t == 0) {
                        firsts[round - 1] = one.ok / one.seconds;
                    }
                }
            }
            if (rounds > 1) {
                for (int t = 0; t < targets.size(); t++) {
                    all[t].print("round all target " + t + " ", rate);
                }
            }
            if (Double.isInfinite(rate)) {
                Arrays.sort(firsts);
                peak = rounds % 2 == 1 ? firsts[rounds / 2]
                        : (firsts[rounds / 2 - 1] + firsts[rounds / 2]) / 2;
            }
        }
        System.exit(failed > 0 ? 1 : 0);
    }

    /** A RATE argument: requests a second, {@code max}, or a percentage of {@code peak}. */
    private static double rate(String text, double peak) {
        double rate;
        if (text.equals("max")) {
            rate = Double.POSITIVE_INFINITY;
        } else if (text.endsWith("%")) {
            if (peak == 0) {
                throw new IllegalArgumentException("RATE " + text + " needs a max before it");
            }
            rate = Math.round(peak * Double.parseDouble(text.substring(0, text.length() - 1))
                    / 100);
        } else {
            rate = Double.parseDouble(text);
        }
        if (!(rate > 0)) {
            throw new IllegalArgumentException("RATE must be positive, max or N%, got " + text);
        }
        return rate;
    }

    /** Where requests go and what they say. */
    private record Target(InetSocketAddress address, byte[] request) {

        static Target of(String text) {
            URI url = URI.create(text);
            if (!"http".equals(url.getScheme()) || url.getHost() == null || url.getPort() < 0) {
                throw new IllegalArgumentException("need http://HOST:PORT/PATH, got " + text);
            }
            String path = url.getRawPath() == null || url.getRawPath().isEmpty()
                    ? "/" : url.getRawPath();
            String target = url.getRawQuery() == null ? path : path + "?" + url.getRawQuery();
            byte[] request = ("GET " + target + " HTTP/1.1\r\nHost: " + url.getHost() + ":"
                    + url.getPort() + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
            return new Target(new InetSocketAddress(url.getHost(), url.getPort()), request);
        }
    }

    /** What one run, or several added up, recorded. */
    private static final class Result {
        final Histogram latency = new Histogram(HIGHEST_NANOS, 3);
        final Histogram lag = new Histogram(HIGHEST_NANOS, 3);
        final Histogram service = new Histogram(HIGHEST_NANOS, 3);
        final Histogram hiccup = new Histogram(HIGHEST_NANOS, 3);
        long ok;
        long errors;
        /** Seconds measured: from the end of the warm-up to the last response. */
        double seconds;
        /** The wall clock (Unix ms) at the end of the warm-up and at the end, for one run. */
        long fromMillis;
        long toMillis;

        Result add(Result other) {
            latency.add(other.latency);
            lag.add(other.lag);
            service.add(other.service);
            hiccup.add(other.hiccup);
            ok += other.ok;
            errors += other.errors;
            seconds += other.seconds;
            return this;
        }

        void print(String prefix, double rate) {
            System.out.printf(Locale.ROOT,
                    "%srate %s achieved %.0f ok %d errors %d p50 %.3f p90 %.3f p99 %.3f"
                            + " p999 %.3f max %.3f lag99 %.3f svc99 %.3f hiccup99 %.3f"
                            + " hiccupmax %.3f ms%s%n",
                    prefix, Double.isInfinite(rate) ? "max"
                            : String.format(Locale.ROOT, "%.0f", rate), ok / seconds, ok, errors,
                    ms(latency.getValueAtPercentile(50)), ms(latency.getValueAtPercentile(90)),
                    ms(latency.getValueAtPercentile(99)), ms(latency.getValueAtPercentile(99.9)),
                    ms(latency.getMaxValue()), ms(lag.getValueAtPercentile(99)),
                    ms(service.getValueAtPercentile(99)), ms(hiccup.getValueAtPercentile(99)),
                    ms(hiccup.getMaxValue()),
                    fromMillis == 0 ? "" : " from " + fromMillis + " to " + toMillis);
            System.out.flush();
        }
    }

    /** One rate against one target: a {@link Driver} per thread from one common start. */
    private static Result run(Target target, double rate, double seconds, double warmup,
            int connections, int threads, boolean spin) throws Exception {
        // The previous runs' histograms and connections go now, not in a pause during this run:
        // the generator's own pause would be measured as the server's latency.
        System.gc();
        long start = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(200);
        long warmupEnd = start + (long) (warmup * 1e9);
        long end = warmupEnd + (long) (seconds * 1e9);
        List<Driver> drivers = new ArrayList<>();
        List<Thread> running = new ArrayList<>();
        Result r = new Result();
        Thread hiccups = new Thread(() -> hiccups(r.hiccup, warmupEnd, end), "hiccups");
        hiccups.setDaemon(true);
        hiccups.start();
        for (int t = 0; t < threads; t++) {
            Driver d = new Driver(target, Math.max(1, connections / threads), rate / threads,
                    start, warmupEnd, end, spin);
            drivers.add(d);
            Thread thread = new Thread(d, "load-" + t);
            thread.start();
            running.add(thread);
        }
        for (Thread thread : running) {
            thread.join();
        }
        hiccups.join();
        long last = end;
        for (Driver d : drivers) {
            if (d.failure != null) {
                throw new IOException("FixedRateLoad: " + target.address() + ": " + d.failure,
                        d.failure);
            }
            r.add(d.result);
            last = Math.max(last, d.lastDone);
        }
        r.seconds = (last - warmupEnd) / 1e9;
        long nowMillis = System.currentTimeMillis();
        long nowNanos = System.nanoTime();
        r.fromMillis = nowMillis - (nowNanos - warmupEnd) / 1_000_000L;
        r.toMillis = nowMillis - (nowNanos - last) / 1_000_000L;
        return r;
    }

    /**
     * Records how late a 1 ms sleep wakes, beyond its millisecond, from {@code from} to
     * {@code to} (jHiccup's measure): the stalls this JVM sees whatever the server does (the
     * host taking the CPU away, other threads on it), to tell them from the server's own.
     */
    private static void hiccups(Histogram into, long from, long to) {
        for (long now = System.nanoTime(); now < to; ) {
            LockSupport.parkNanos(1_000_000L);
            long woke = System.nanoTime();
            if (now >= from) {
                into.recordValue(Math.min(Math.max(0, woke - now - 1_000_000L), HIGHEST_NANOS));
            }
            now = woke;
        }
    }

    private static double ms(long nanos) {
        return nanos / 1e6;
    }

    /**
     * One thread's share of the rate: its schedule, connections, selector and histograms.
     * Request {@code k} of the thread is due at {@code start + k * interval}; {@code due} of them
     * are due by now, {@code sent} went on the wire, so the ones waiting for a free connection
     * are {@code [sent, due)} and need no queue.
     */
    private static final class Driver implements Runnable {
        final Result result = new Result();
        long lastDone;
        /** Why the thread gave up (cannot connect, say), or null. */
        IOException failure;

        private final InetSocketAddress address;
        private final ByteBuffer request;
        private final int connections;
        private final double intervalNanos;
        private final long start;
        private final long warmupEnd;
        private final long end;
        /** Closed loop: every connection sends again as soon as it is answered, until the end. */
        private final boolean closed;
        private final long total;
        private final boolean spin;
        /** The free connections, a stack. */
        private final Conn[] idle;
        private int idleCount;
        private Selector selector;
        /** One callback for every poll: {@code this::ready} in the loop made an object a poll. */
        private final Consumer<SelectionKey> onReady = this::ready;
        private long sent;
        private long outstanding;

        Driver(Target target, int connections, double rate, long start, long warmupEnd,
                long end, boolean spin) {
            this.address = target.address();
            this.request = ByteBuffer.allocateDirect(target.request().length)
                    .put(target.request()).flip();
            this.connections = connections;
            this.intervalNanos = 1e9 / rate;
            this.start = start;
            this.warmupEnd = warmupEnd;
            this.end = end;
            this.closed = Double.isInfinite(rate);
            this.total = closed ? Long.MAX_VALUE : (long) ((end - start) / intervalNanos);
            this.spin = spin;
            this.idle = new Conn[connections];
        }

        @Override
        public void run() {
            try (Selector s = Selector.open()) {
                selector = s;
                for (int i = 0; i < connections; i++) {
                    idle[idleCount++] = open();
                }
                loop(end + TimeUnit.SECONDS.toNanos(30));
                for (SelectionKey key : s.keys()) {
                    key.channel().close();
                }
            } catch (IOException e) {
                failure = e;
            } catch (UncheckedIOException e) {
                failure = e.getCause();
            }
        }

        private long scheduled(long k) {
            return start + (long) (k * intervalNanos);
        }

        private void loop(long deadline) throws IOException {
            for (;;) {
                long now = System.nanoTime();
                if (now > deadline) {
                    result.errors += outstanding + (closed ? 0 : total - sent);
                    System.err.println("FixedRateLoad: " + outstanding + " responses missing");
                    return;
                }
                long due = now < start ? 0
                        : closed ? (now < end ? Long.MAX_VALUE : sent)
                        : Math.min(total, (long) ((now - start) / intervalNanos) + 1);
                while (sent < due && idleCount > 0) {
                    send(idle[--idleCount], closed ? now : scheduled(sent));
                    sent++;
                }
                boolean finished = closed ? now >= end : sent >= total;
                if (finished && outstanding == 0) {
                    return;
                }
                if (spin) {
                    selector.selectNow(onReady);
                    Thread.yield();
                } else if (sent < due || finished) {
                    // Every connection waits on the server: so does this thread. Polling instead
                    // would take the CPU from a server that is already behind.
                    selector.select(onReady, 1);
                } else {
                    long wait = scheduled(sent) - now;
                    if (wait > SELECT_NANOS) {
                        selector.select(onReady, wait / 1_000_000L);
                    } else {
                        selector.selectNow(onReady);
                        if (wait > 0) {
                            LockSupport.parkNanos(Math.min(wait, PARK_NANOS));
                        }
                    }
                }
            }
        }

        private Conn open() throws IOException {
            SocketChannel ch = SocketChannel.open(address);
            ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
            ch.configureBlocking(false);
            Conn c = new Conn(ch, request.duplicate());
            ch.register(selector, SelectionKey.OP_READ, c);
            return c;
        }

        private void send(Conn c, long scheduled) throws IOException {
            long now = System.nanoTime();
            c.scheduled = scheduled;
            c.sentAt = now;
            outstanding++;
            if (scheduled >= warmupEnd) {
                result.lag.recordValue(Math.min(Math.max(0, now - scheduled), HIGHEST_NANOS));
            }
            ByteBuffer out = c.out.rewind();
            try {
                while (out.hasRemaining()) {
                    c.channel.write(out);
                }
            } catch (IOException e) {
                fail(c, "write: " + e);
            }
        }

        private void ready(SelectionKey key) {
            try {
                read((Conn) key.attachment());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        private void read(Conn c) throws IOException {
            int n;
            try {
                n = c.channel.read(c.in);
            } catch (IOException e) {
                n = -1;
            }
            if (n < 0) {
                fail(c, "connection closed by the server");
                return;
            }
            int status = c.complete();
            if (status == 0) {
                return;
            }
            long now = System.nanoTime();
            outstanding--;
            if (c.scheduled >= warmupEnd) {
                lastDone = now;
                if (status == 200) {
                    result.ok++;
                    result.latency.recordValue(Math.min(now - c.scheduled, HIGHEST_NANOS));
                    result.service.recordValue(Math.min(now - c.sentAt, HIGHEST_NANOS));
                } else {
                    error("status " + status);
                }
            }
            idle[idleCount++] = c;
        }

        /** A broken connection: counts its request as failed and replaces the connection. */
        private void fail(Conn c, String why) throws IOException {
            c.channel.close();
            outstanding--;
            if (c.scheduled >= warmupEnd) {
                error(why);
            }
            idle[idleCount++] = open();
        }

        private void error(String what) {
            if (++result.errors <= 3) {
                System.err.println("FixedRateLoad: " + what);
            }
        }
    }

    /**
     * One keep-alive connection with at most one request outstanding (package-visible for
     * FixedRateLoadTest, which feeds {@link #complete()} responses in pieces).
     */
    static final class Conn {
        private static final byte[] CONTENT_LENGTH =
                "\ncontent-length:".getBytes(StandardCharsets.US_ASCII);

        final SocketChannel channel;
        /** This connection's view of the shared request bytes. */
        final ByteBuffer out;
        ByteBuffer in = ByteBuffer.allocateDirect(16 * 1024);
        long scheduled;
        long sentAt;
        /** Where the search for the end of the head goes on, in {@link #in}. */
        private int scanned;
        /** The end of the head and the whole response's length, once the head is in. */
        private int headEnd = -1;
        private long length;

        Conn(SocketChannel channel, ByteBuffer out) {
            this.channel = channel;
            this.out = out;
        }

        /**
         * The status of the response in {@link #in} once all of it is there (and clears the
         * buffer), or 0 while more is to come. Reads only what it needs, status and length, and
         * makes no objects.
         */
        int complete() {
            int len = in.position();
            if (headEnd < 0) {
                for (int i = Math.max(3, scanned); i < len; i++) {
                    if (in.get(i) == '\n' && in.get(i - 1) == '\r' && in.get(i - 2) == '\n'
                            && in.get(i - 3) == '\r') {
                        headEnd = i + 1;
                        break;
                    }
                }
                if (headEnd < 0) {
                    scanned = len;
                    if (!in.hasRemaining()) {
                        grow(in.capacity() * 2);
                    }
                    return 0;
                }
                length = headEnd + contentLength();
            }
            if (len < length) {
                if (in.capacity() < length) {
                    grow((int) length);
                }
                return 0;
            }
            if (len > length) {
                throw new IllegalStateException("bytes after the response: the server sent "
                        + (len - length) + " bytes nobody asked for");
            }
            int status = (in.get(9) - '0') * 100 + (in.get(10) - '0') * 10 + (in.get(11) - '0');
            in.clear();
            scanned = 0;
            headEnd = -1;
            return status;
        }

        private long contentLength() {
            for (int i = 0; i + CONTENT_LENGTH.length < headEnd; i++) {
                int k = 0;
                while (k < CONTENT_LENGTH.length
                        && Character.toLowerCase(in.get(i + k)) == CONTENT_LENGTH[k]) {
                    k++;
                }
                if (k == CONTENT_LENGTH.length) {
                    int at = i + k;
                    while (in.get(at) == ' ') {
                        at++;
                    }
                    long n = 0;
                    for (byte b = in.get(at); b >= '0' && b <= '9'; b = in.get(++at)) {
                        n = n * 10 + (b - '0');
                    }
                    return n;
                }
            }
            byte[] head = new byte[headEnd];
            in.get(0, head);
            throw new IllegalStateException("response without content-length: "
                    + new String(head, StandardCharsets.US_ASCII));
        }

        private void grow(int capacity) {
            ByteBuffer bigger = ByteBuffer.allocateDirect(capacity);
            in.flip();
            bigger.put(in);
            in = bigger;
        }
    }
}

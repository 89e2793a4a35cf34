package io.idmint.benchmarks;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
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
 * <p>Why not an HTTP client library: the generator shares the CPU with the server under test,
 * so it must cost as little per request as wrk does. Each of {@code threads} threads drives
 * {@code connections / threads} HTTP/1.1 connections (no pipelining, like wrk) with one NIO
 * selector, writes a constant request and reads a response by its {@code content-length}. Between
 * sends it waits in {@code select} when the next send is over 1 ms away and parks for ≤ 50 µs
 * otherwise, so its own timing error stays far below the 1 ms being measured.
 *
 * <p>Beside the latency it prints {@code achieved} (responses per second of the measured span),
 * {@code lag99} (p99 of how late a request went on the wire after its scheduled time: the
 * generator's thread ran late, or all its connections were waiting on the server) and
 * {@code svc99} (p99 from send to response, what a closed-loop tool would report). An achieved
 * rate below the asked one means the generator, or the CPU it shares, was the limit; a p99 far
 * above svc99 means the tail is requests that waited to be sent, not slow responses.
 *
 * <p>Several rates run one after another in one JVM (the JIT is warm for all), each with new
 * connections and its own warm-up. Run ({@code scripts/bench-http} runs it against idmint and
 * the bare server):
 *
 * <pre>
 * java -cp idmint-benchmarks/target/benchmarks.jar io.idmint.benchmarks.FixedRateLoad \
 *     URL RATE[,RATE...] [SECONDS [WARMUP_SECONDS [CONNECTIONS [THREADS]]]]
 * </pre>
 *
 * <p>Defaults: 10 s, 2 s, 64 connections, 2 threads. It prints one line per rate: {@code rate R
 * achieved A ok N errors E p50 .. p90 .. p99 .. p999 .. max .. lag99 .. svc99 .. ms} (in ms), and
 * exits 1 if any request failed or was not a 200.
 */
public final class FixedRateLoad {

    private static final long HIGHEST_NANOS = TimeUnit.MINUTES.toNanos(1);

    private FixedRateLoad() {}

    public static void main(String[] args) throws Exception {
        if (args.length < 2) {
            System.err.println("usage: FixedRateLoad URL RATE[,RATE...]"
                    + " [SECONDS [WARMUP [CONNECTIONS [THREADS]]]]");
            System.exit(2);
        }
        URI url = URI.create(args[0]);
        if (!"http".equals(url.getScheme()) || url.getHost() == null || url.getPort() < 0) {
            throw new IllegalArgumentException("need http://HOST:PORT/PATH, got " + args[0]);
        }
        double seconds = args.length > 2 ? Double.parseDouble(args[2]) : 10;
        double warmup = args.length > 3 ? Double.parseDouble(args[3]) : 2;
        int connections = args.length > 4 ? Integer.parseInt(args[4]) : 64;
        int threads = args.length > 5 ? Integer.parseInt(args[5]) : 2;
        String path = url.getRawPath() == null || url.getRawPath().isEmpty()
                ? "/" : url.getRawPath();
        String target = url.getRawQuery() == null ? path : path + "?" + url.getRawQuery();
        byte[] request = ("GET " + target + " HTTP/1.1\r\nHost: " + url.getHost() + ":"
                + url.getPort() + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
        InetSocketAddress address = new InetSocketAddress(url.getHost(), url.getPort());

        long failed = 0;
        for (String r : args[1].split(",")) {
            failed += run(address, request, Double.parseDouble(r), seconds, warmup, connections,
                    threads);
        }
        System.exit(failed > 0 ? 1 : 0);
    }

    /** One rate: a {@link Driver} per thread from one common start; prints the line. */
    private static long run(InetSocketAddress address, byte[] request, double rate,
            double seconds, double warmup, int connections, int threads) throws Exception {
        long start = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(200);
        long warmupEnd = start + (long) (warmup * 1e9);
        long end = warmupEnd + (long) (seconds * 1e9);
        List<Driver> drivers = new ArrayList<>();
        List<Thread> running = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            Driver d = new Driver(address, request, Math.max(1, connections / threads),
                    rate / threads, start, warmupEnd, end);
            drivers.add(d);
            Thread thread = new Thread(d, "load-" + t);
            thread.start();
            running.add(thread);
        }
        for (Thread thread : running) {
            thread.join();
        }
        Histogram latency = new Histogram(HIGHEST_NANOS, 3);
        Histogram lag = new Histogram(HIGHEST_NANOS, 3);
        Histogram service = new Histogram(HIGHEST_NANOS, 3);
        long ok = 0;
        long errors = 0;
        long last = end;
        for (Driver d : drivers) {
            latency.add(d.latency);
            lag.add(d.lag);
            service.add(d.service);
            ok += d.ok;
            errors += d.errors;
            last = Math.max(last, d.lastDone);
        }
        System.out.printf(Locale.ROOT,
                "rate %.0f achieved %.0f ok %d errors %d p50 %.3f p90 %.3f p99 %.3f p999 %.3f"
                        + " max %.3f lag99 %.3f svc99 %.3f ms%n",
                rate, ok / ((last - warmupEnd) / 1e9), ok, errors,
                ms(latency.getValueAtPercentile(50)), ms(latency.getValueAtPercentile(90)),
                ms(latency.getValueAtPercentile(99)), ms(latency.getValueAtPercentile(99.9)),
                ms(latency.getMaxValue()), ms(lag.getValueAtPercentile(99)),
                ms(service.getValueAtPercentile(99)));
        System.out.flush();
        return errors;
    }

    private static double ms(long nanos) {
        return nanos / 1e6;
    }

    /** One thread's share of the rate: its schedule, connections, selector and histograms. */
    private static final class Driver implements Runnable {
        final Histogram latency = new Histogram(HIGHEST_NANOS, 3);
        final Histogram lag = new Histogram(HIGHEST_NANOS, 3);
        final Histogram service = new Histogram(HIGHEST_NANOS, 3);
        long ok;
        long errors;
        long lastDone;

        private final InetSocketAddress address;
        private final byte[] request;
        private final int connections;
        private final double intervalNanos;
        private final long start;
        private final long warmupEnd;
        private final long total;
        private final ArrayDeque<Conn> idle = new ArrayDeque<>();
        /** Scheduled send times not yet sent, oldest first. */
        private final ArrayDeque<Long> queue = new ArrayDeque<>();
        private Selector selector;
        private long sent;
        private long outstanding;

        Driver(InetSocketAddress address, byte[] request, int connections, double rate,
                long start, long warmupEnd, long end) {
            this.address = address;
            this.request = request;
            this.connections = connections;
            this.intervalNanos = 1e9 / rate;
            this.start = start;
            this.warmupEnd = warmupEnd;
            this.total = (long) ((end - start) / intervalNanos);
        }

        @Override
        public void run() {
            try (Selector s = Selector.open()) {
                selector = s;
                for (int i = 0; i < connections; i++) {
                    idle.add(open());
                }
                loop(start + (long) ((total + 1) * intervalNanos) + TimeUnit.SECONDS.toNanos(30));
                for (SelectionKey key : s.keys()) {
                    key.channel().close();
                }
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }

        private void loop(long deadline) throws IOException {
            while (sent < total || outstanding > 0) {
                long now = System.nanoTime();
                if (now > deadline) {
                    errors += outstanding + queue.size();
                    System.err.println("FixedRateLoad: " + outstanding + " responses missing");
                    return;
                }
                long due = Math.min(total, (long) ((now - start) / intervalNanos) + 1);
                if (now < start) {
                    due = 0;
                }
                while (sent < due) {
                    queue.add(start + (long) (sent * intervalNanos));
                    sent++;
                }
                while (!queue.isEmpty() && !idle.isEmpty()) {
                    send(idle.poll(), queue.poll());
                }
                long wait = sent < total ? start + (long) (sent * intervalNanos) - now : -1;
                if (wait > 1_500_000L || (wait < 0 && sent >= total)) {
                    selector.select(wait < 0 ? 1 : wait / 1_000_000L);
                } else {
                    selector.selectNow();
                }
                for (SelectionKey key : selector.selectedKeys()) {
                    read((Conn) key.attachment());
                }
                selector.selectedKeys().clear();
                if (wait > 0 && wait <= 1_500_000L) {
                    LockSupport.parkNanos(Math.min(wait, 50_000L));
                }
            }
        }

        private Conn open() throws IOException {
            SocketChannel ch = SocketChannel.open(address);
            ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
            ch.configureBlocking(false);
            Conn c = new Conn(ch);
            ch.register(selector, SelectionKey.OP_READ, c);
            return c;
        }

        private void send(Conn c, long scheduled) throws IOException {
            long now = System.nanoTime();
            c.scheduled = scheduled;
            c.sentAt = now;
            outstanding++;
            if (scheduled >= warmupEnd) {
                lag.recordValue(Math.min(Math.max(0, now - scheduled), HIGHEST_NANOS));
            }
            ByteBuffer out = ByteBuffer.wrap(request);
            try {
                while (out.hasRemaining()) {
                    c.channel.write(out);
                }
            } catch (IOException e) {
                fail(c, "write: " + e);
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
                if (!c.in.hasRemaining()) {
                    c.grow();
                }
                return;
            }
            long now = System.nanoTime();
            outstanding--;
            if (c.scheduled >= warmupEnd) {
                lastDone = now;
                if (status == 200) {
                    ok++;
                    latency.recordValue(Math.min(now - c.scheduled, HIGHEST_NANOS));
                    service.recordValue(Math.min(now - c.sentAt, HIGHEST_NANOS));
                } else {
                    error("status " + status);
                }
            }
            idle.add(c);
        }

        /** A broken connection: counts its request as failed and replaces the connection. */
        private void fail(Conn c, String why) throws IOException {
            c.channel.close();
            outstanding--;
            if (c.scheduled >= warmupEnd) {
                error(why);
            }
            idle.add(open());
        }

        private void error(String what) {
            if (++errors <= 3) {
                System.err.println("FixedRateLoad: " + what);
            }
        }
    }

    /** One keep-alive connection with at most one request outstanding. */
    private static final class Conn {
        final SocketChannel channel;
        ByteBuffer in = ByteBuffer.allocate(64 * 1024);
        long scheduled;
        long sentAt;

        Conn(SocketChannel channel) {
            this.channel = channel;
        }

        /**
         * The status of the response in {@link #in} once all of it is there (and clears the
         * buffer), or 0 while more is to come. Reads only what it needs: status and length.
         */
        int complete() {
            byte[] b = in.array();
            int len = in.position();
            int headerEnd = -1;
            for (int i = 3; i < len; i++) {
                if (b[i] == '\n' && b[i - 1] == '\r' && b[i - 2] == '\n' && b[i - 3] == '\r') {
                    headerEnd = i + 1;
                    break;
                }
            }
            if (headerEnd < 0) {
                return 0;
            }
            String head = new String(b, 0, headerEnd, StandardCharsets.US_ASCII);
            int at = head.toLowerCase(Locale.ROOT).indexOf("\ncontent-length:");
            if (at < 0) {
                throw new IllegalStateException("response without content-length: " + head);
            }
            int eol = head.indexOf('\r', at + 1);
            long body = Long.parseLong(head.substring(at + 16, eol).trim());
            if (len < headerEnd + body) {
                if (in.capacity() < headerEnd + body) {
                    grow();
                }
                return 0;
            }
            in.clear();
            return Integer.parseInt(head.substring(9, 12));
        }

        void grow() {
            ByteBuffer bigger = ByteBuffer.allocate(in.capacity() * 2);
            in.flip();
            bigger.put(in);
            in = bigger;
        }
    }
}

package io.idmint.benchmarks;

import com.sun.tools.attach.VirtualMachine;
import io.grpc.ManagedChannel;
import io.grpc.netty.NettyChannelBuilder;
import io.idmint.grpc.v1.IdServiceGrpc;
import io.idmint.grpc.v1.NextIdsRequest;
import io.idmint.grpc.v1.NextIdsResponse;
import io.idmint.grpc.v1.StreamIdsRequest;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;

/**
 * Heap bytes a running server allocates per request, route by route: the sum of
 * {@link com.sun.management.ThreadMXBean#getThreadAllocatedBytes(long[])} over the server
 * process's threads (event loops, gRPC threads, workers) across N requests, divided by N. It
 * attaches to the server's JVM (the attach API starts its local management agent; the threads
 * that serve that connection, {@code RMI …} and {@code JMX …}, are left out), so the server runs
 * unchanged and the client's own garbage is not counted. The counters are exact, so the figure
 * does not depend on a quiet machine, unlike a latency. Requests go one at a time on one
 * keep-alive connection (one gRPC channel); each route is warmed up with N requests first (so
 * that the JIT has compiled and escape-analysed the path), then measured in three rounds of N,
 * and the median is printed. {@code scripts/bench alloc} starts the servers and runs this.
 *
 * <pre>
 * java -cp idmint-benchmarks/target/benchmarks.jar io.idmint.benchmarks.AllocationProbe \
 *     IDMINT_PID HTTP_PORT GRPC_PORT BARE_PID BARE_PORT [N]
 * </pre>
 *
 * <p>The idmint server needs a segment store (the default embedded one will do): the probe
 * creates the tag {@code alloc-probe} if it is missing.
 */
public final class AllocationProbe {

    private static final String HOST = "127.0.0.1";
    private static final int ROUNDS = 3;
    private static final String TAG = "alloc-probe";
    /** IDs per StreamIds call: {@value} batches of the server's 1000. */
    private static final int STREAM_BATCHES = 100;

    private AllocationProbe() {}

    /** One request (or one call, counted as {@code units} requests). */
    private interface Call {
        void run() throws Exception;
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 5) {
            System.err.println("usage: AllocationProbe IDMINT_PID HTTP_PORT GRPC_PORT BARE_PID"
                    + " BARE_PORT [N]");
            System.exit(2);
        }
        int httpPort = Integer.parseInt(args[1]);
        int grpcPort = Integer.parseInt(args[2]);
        int barePort = Integer.parseInt(args[4]);
        int n = args.length > 5 ? Integer.parseInt(args[5]) : 20_000;
        try (Allocations idmint = new Allocations(args[0]);
                Allocations bare = new Allocations(args[3]);
                Http create = new Http(httpPort, "POST", "/api/v1/segments",
                        "{\"tag\":\"" + TAG + "\"}");
                Http id = new Http(httpPort, "GET", "/v1/id", null);
                Http ids = new Http(httpPort, "GET", "/v1/ids?count=100", null);
                Http api = new Http(httpPort, "GET", "/api/v1/ids?count=1", null);
                Http segment = new Http(httpPort, "GET", "/api/segment/get/" + TAG, null);
                Http root = new Http(barePort, "GET", "/", null)) {
            int created = create.call();
            if (created != 201 && created != 409) {
                throw new IllegalStateException("creating segment tag " + TAG + " answered "
                        + created + ": " + create.body());
            }
            ManagedChannel channel = NettyChannelBuilder.forAddress(HOST, grpcPort)
                    .usePlaintext().build();
            // The generated stub: the client's own allocations are not measured.
            IdServiceGrpc.IdServiceBlockingStub grpc = IdServiceGrpc.newBlockingStub(channel);
            try {
                System.out.printf("%-34s %19s %19s%n", "route (server-side heap bytes)",
                        "idmint", "bare Vert.x");
                row("GET /v1/id  (bare: GET /)", idmint.perRequest(n, 1, id::check),
                        bare.perRequest(n, 1, root::check));
                row("GET /v1/ids?count=100", idmint.perRequest(n, 1, ids::check), null);
                row("GET /api/v1/ids?count=1", idmint.perRequest(n, 1, api::check), null);
                row("GET /api/segment/get/{tag}", idmint.perRequest(n, 1, segment::check), null);
                row("gRPC NextIds count=1", idmint.perRequest(n, 1,
                        () -> nextIds(grpc, 1)), null);
                row("gRPC NextIds count=100", idmint.perRequest(n, 1,
                        () -> nextIds(grpc, 100)), null);
                int calls = Math.max(1, n / STREAM_BATCHES);
                row("gRPC StreamIds, per 1000-ID batch", idmint.perRequest(calls,
                        STREAM_BATCHES, () -> streamIds(grpc, STREAM_BATCHES)), null);
                System.out.printf("(median (min-max) of %d rounds of %d requests, each route "
                        + "warmed up with %d first; StreamIds: %d calls of %d batches)%n",
                        ROUNDS, n, n, calls, STREAM_BATCHES);
            } finally {
                channel.shutdownNow();
            }
        }
    }

    private static void row(String route, String idmint, String bare) {
        System.out.printf("%-34s %19s %19s%n", route, idmint, bare == null ? "-" : bare);
    }

    private static void nextIds(IdServiceGrpc.IdServiceBlockingStub ids, int count) {
        int got = ids.nextIds(NextIdsRequest.newBuilder().setCount(count).build()).getIdsCount();
        if (got != count) {
            throw new IllegalStateException("NextIds count=" + count + " gave " + got + " IDs");
        }
    }

    private static void streamIds(IdServiceGrpc.IdServiceBlockingStub ids, int batches) {
        Iterator<NextIdsResponse> replies = ids.streamIds(
                StreamIdsRequest.newBuilder().setCount(batches * 1000L).build());
        int got = 0;
        while (replies.hasNext()) {
            if (replies.next().getIdsCount() != 1000) {
                throw new IllegalStateException("a StreamIds batch was not 1000 IDs");
            }
            got++;
        }
        if (got != batches) {
            throw new IllegalStateException("StreamIds sent " + got + " batches, not " + batches);
        }
    }

    /** The allocation counters of one server JVM, read through its management agent. */
    private static final class Allocations implements AutoCloseable {

        private final JMXConnector connector;
        private final com.sun.management.ThreadMXBean threads;

        Allocations(String pid) throws Exception {
            VirtualMachine vm = VirtualMachine.attach(pid);
            String address;
            try {
                address = vm.startLocalManagementAgent();
            } finally {
                vm.detach();
            }
            connector = JMXConnectorFactory.connect(new JMXServiceURL(address));
            threads = ManagementFactory.newPlatformMXBeanProxy(
                    connector.getMBeanServerConnection(), ManagementFactory.THREAD_MXBEAN_NAME,
                    com.sun.management.ThreadMXBean.class);
        }

        /** Bytes allocated so far by each thread but those serving this connection. */
        private Map<Long, Long> snapshot() {
            long[] ids = threads.getAllThreadIds();
            ThreadInfo[] infos = threads.getThreadInfo(ids);
            long[] bytes = threads.getThreadAllocatedBytes(ids);
            Map<Long, Long> out = new HashMap<>();
            for (int i = 0; i < ids.length; i++) {
                String name = infos[i] == null ? null : infos[i].getThreadName();
                if (name != null && bytes[i] >= 0 && !name.startsWith("RMI ")
                        && !name.startsWith("JMX ") && !name.equals("Attach Listener")) {
                    out.put(ids[i], bytes[i]);
                }
            }
            return out;
        }

        /**
         * Bytes per unit over the rounds, as "median (min-max)"; {@code call} is one request.
         */
        String perRequest(int calls, int units, Call call) throws Exception {
            for (int i = 0; i < calls; i++) {
                call.run();
            }
            long[] rounds = new long[ROUNDS];
            for (int r = 0; r < ROUNDS; r++) {
                Map<Long, Long> before = snapshot();
                for (int i = 0; i < calls; i++) {
                    call.run();
                }
                long total = 0;
                for (Map.Entry<Long, Long> e : snapshot().entrySet()) {
                    total += e.getValue() - before.getOrDefault(e.getKey(), 0L);
                }
                rounds[r] = Math.round(total / (double) calls / units);
            }
            Arrays.sort(rounds);
            return rounds[ROUNDS / 2] + " (" + rounds[0] + "-" + rounds[ROUNDS - 1] + ")";
        }

        @Override
        public void close() throws IOException {
            connector.close();
        }
    }

    /** One keep-alive HTTP/1.1 connection sending one request over and over. */
    private static final class Http implements AutoCloseable {

        private final Socket socket;
        private final OutputStream out;
        private final InputStream in;
        private final byte[] request;
        private byte[] body = new byte[0];

        Http(int port, String method, String path, String body) throws IOException {
            socket = new Socket(HOST, port);
            socket.setTcpNoDelay(true);
            out = socket.getOutputStream();
            in = new BufferedInputStream(socket.getInputStream(), 1 << 16);
            String head = method + " " + path + " HTTP/1.1\r\nHost: " + HOST + ":" + port
                    + "\r\n" + (body == null ? "" : "Content-Type: application/json\r\n"
                            + "Content-Length: " + body.length() + "\r\n") + "\r\n";
            request = (head + (body == null ? "" : body)).getBytes(StandardCharsets.US_ASCII);
        }

        /** Sends the request and reads the response; returns its status. */
        int call() throws IOException {
            out.write(request);
            out.flush();
            String status = line();
            int length = 0;
            for (String h = line(); !h.isEmpty(); h = line()) {
                if (h.regionMatches(true, 0, "content-length:", 0, 15)) {
                    length = Integer.parseInt(h.substring(15).trim());
                }
            }
            body = in.readNBytes(length);
            return Integer.parseInt(status.substring(9, 12));
        }

        /** As {@link #call()}, failing unless the answer is 200. */
        void check() throws IOException {
            int status = call();
            if (status != 200) {
                throw new IllegalStateException("answered " + status + ": " + body());
            }
        }

        String body() {
            return new String(body, StandardCharsets.UTF_8);
        }

        private String line() throws IOException {
            StringBuilder b = new StringBuilder();
            for (int c = in.read(); c != '\n'; c = in.read()) {
                if (c < 0) {
                    throw new IOException("the server closed the connection");
                }
                if (c != '\r') {
                    b.append((char) c);
                }
            }
            return b.toString();
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }
}

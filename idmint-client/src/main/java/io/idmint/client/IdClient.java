package io.idmint.client;

import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.MetadataUtils;
import io.idmint.FencedUuidV7;
import io.idmint.Layout;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import javax.net.ssl.SSLException;

/**
 * A client of idmint servers over gRPC (see docs/client.md). {@link #nextId()} takes an ID from
 * a local buffer that a background thread keeps filled from one server's StreamIds call, sized
 * to the rate the IDs are taken; when a server fails or falls silent the client moves to the
 * next endpoint. IDs are unique, and increasing in the order {@code nextId()} returns them, on
 * one thread and across threads (see "Ordering" there for the one exception). Close it to stop
 * the thread and the connections.
 *
 * <pre>{@code
 * try (IdClient ids = IdClient.connect(List.of("h1:9090", "h2:9090"))) {
 *     long id = ids.nextId();
 *     long order = ids.segment("order").next();
 * }
 * }</pre>
 */
public final class IdClient implements AutoCloseable {

    /** The HTTP/2 window of each connection: the most IDs in flight to a full buffer. */
    static final int FLOW_CONTROL_WINDOW = 256 * 1024;
    /** The most IDs buffered unless {@link Builder#bufferSize} says otherwise. */
    public static final int DEFAULT_BUFFER_SIZE = 65_536;

    private final List<Endpoint> endpoints;
    private final Endpoints refillEndpoints;
    private final PrefetchBuffer buffer;
    private final Refill refill;
    private final long deadlineNanos;
    private final long callTimeoutNanos;
    private final int segmentBatch;
    private final Supplier<RuntimeException> timedOut;
    private final Map<String, SegmentClient> segments = new ConcurrentHashMap<>();
    private final Layout layout;

    private IdClient(Builder b, List<Endpoint> endpoints) {
        this.endpoints = endpoints;
        this.layout = b.layout;
        this.deadlineNanos = b.deadline.toNanos();
        this.callTimeoutNanos = b.callTimeout.toNanos();
        this.segmentBatch = b.segmentBatch;
        this.refillEndpoints = new Endpoints(endpoints, System::nanoTime);
        Refill[] self = new Refill[1];
        this.buffer = new PrefetchBuffer(() -> self[0].wake());
        this.refill = new Refill(refillEndpoints, buffer, new Demand(b.bufferSize,
                System.nanoTime()), callTimeoutNanos);
        self[0] = refill;
        Duration deadline = b.deadline;
        this.timedOut = () -> refillEndpoints.unavailable("no endpoint gave an ID", deadline);
    }

    /** A client of one target, e.g. {@code "dns:///ids.internal:9090"} or {@code "h1:9090"}. */
    public static IdClient connect(String target) {
        return builder().endpoints(List.of(target)).build();
    }

    /** A client of several servers, asked in this order (see docs/client.md, "Failover"). */
    public static IdClient connect(List<String> targets) {
        return builder().endpoints(targets).build();
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * The next ID: from the buffer at once almost always, else as soon as the refill brings
     * one, waiting at most the deadline.
     *
     * @throws IdServiceUnavailableException when no endpoint gave IDs within the deadline
     * @throws IllegalStateException when the client is closed
     */
    public long nextId() {
        return buffer.take(deadlineNanos, timedOut);
    }

    /**
     * The fenced UUIDv7 of the next ID ({@link FencedUuidV7}): a {@code UUID} key with the
     * IDs' guarantee, unique by construction and increasing as the IDs are. Its time and worker
     * read right when {@link Builder#layout} is the servers' layout.
     *
     * @throws IdServiceUnavailableException as {@link #nextId()}
     */
    public UUID nextUuid() {
        return FencedUuidV7.of(nextId(), layout);
    }

    /** The IDs of segment tag {@code tag}, with a buffer of their own (one per tag). */
    public SegmentClient segment(String tag) {
        if (tag == null || tag.isBlank()) {
            throw new IllegalArgumentException("segment tag must not be blank: '" + tag + "'");
        }
        return segments.computeIfAbsent(tag, t -> new SegmentClient(t,
                new Endpoints(endpoints, System::nanoTime), segmentBatch,
                Duration.ofNanos(deadlineNanos),
                callTimeoutNanos));
    }

    /**
     * The values of serial {@code name} (docs/serials.md): each call asks a server, with
     * failover; serial values are never buffered, since a buffered one could outlive its period.
     */
    public SerialClient serial(String name) {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("serial name must not be blank: '" + name + "'");
        }
        return new SerialClient(name, new Endpoints(endpoints, System::nanoTime),
                Duration.ofNanos(deadlineNanos), callTimeoutNanos);
    }

    /** What the client holds and has done so far. */
    public Stats stats() {
        return new Stats(buffer.buffered(), refill.dropped(), refill.orderingResets(),
                refillEndpoints.failovers());
    }

    /**
     * Counters of a client.
     *
     * @param bufferedIds IDs fetched and not yet handed out
     * @param droppedIds IDs fetched but not handed out because they were not above the last
     *     one buffered (a new call or server behind the last)
     * @param orderingResets times the order started over from a server far behind
     * @param failovers times the ID refill moved to the next endpoint after a failure
     */
    public record Stats(long bufferedIds, long droppedIds, long orderingResets, long failovers) {
    }

    /** Stops the refill, fails waiting callers with IllegalStateException, closes channels. */
    @Override
    public void close() {
        boolean interrupted = false;
        try {
            refill.close(TimeUnit.SECONDS.toNanos(5));
        } catch (InterruptedException e) {
            interrupted = true;
        }
        buffer.close();
        for (Endpoint e : endpoints) {
            e.channel.shutdownNow();
        }
        try {
            for (Endpoint e : endpoints) {
                e.channel.awaitTermination(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            interrupted = true;
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** The knobs of a client (see docs/client.md, "Knobs"). */
    public static final class Builder {

        private List<String> targets = List.of();
        private int bufferSize = DEFAULT_BUFFER_SIZE;
        private Duration deadline = Duration.ofSeconds(5);
        private Duration callTimeout = Duration.ofSeconds(1);
        private int segmentBatch = 100;
        private Path trustCertificates;
        private Path clientCertificate;
        private Path clientKey;
        private String token;
        private boolean tls;
        private Layout layout = Layout.SNOWFLAKE;

        private Builder() {
        }

        /**
         * The servers' layout, for {@link IdClient#nextUuid()}: a UUID carries its ID's time as
         * Unix milliseconds, which takes the layout's epoch and tick; default {@code snowflake},
         * the servers' default. (Whatever the layout, UUIDs of distinct IDs are distinct.)
         *
         * @throws IllegalArgumentException when a UUIDv7 cannot hold the layout's times
         */
        public Builder layout(Layout layout) {
            FencedUuidV7.requireFits(layout);
            this.layout = layout;
            return this;
        }

        /** The servers, asked in this order: gRPC targets such as {@code "h1:9090"}. */
        public Builder endpoints(List<String> targets) {
            if (targets == null || targets.isEmpty()) {
                throw new IllegalArgumentException("at least one endpoint is needed: " + targets);
            }
            for (String t : targets) {
                if (t == null || t.isBlank()) {
                    throw new IllegalArgumentException("blank endpoint in " + targets);
                }
            }
            this.targets = List.copyOf(targets);
            return this;
        }

        /** The most IDs buffered (8 bytes each), 1000 to 16777216; default 65536. */
        public Builder bufferSize(int ids) {
            if (ids < 1000 || ids > 1 << 24) {
                throw new IllegalArgumentException("buffer size must be 1000 to 16777216 IDs: "
                        + ids);
            }
            this.bufferSize = ids;
            return this;
        }

        /** The longest a call of the client waits for an ID; default 5 s. */
        public Builder deadline(Duration deadline) {
            this.deadline = positive("deadline", deadline);
            return this;
        }

        /**
         * The longest one server may stay silent before the client asks the next; default 1 s.
         * Keep it well below the deadline, so that a failover fits within it.
         */
        public Builder callTimeout(Duration timeout) {
            this.callTimeout = positive("call timeout", timeout);
            return this;
        }

        /** The segment IDs fetched per call for each tag, 1 to 10000; default 100. */
        public Builder segmentBatch(int ids) {
            if (ids < 1 || ids > 10_000) {
                throw new IllegalArgumentException("segment batch must be 1 to 10000: " + ids);
            }
            this.segmentBatch = ids;
            return this;
        }

        /**
         * TLS, trusting the JDK's certificate authorities (or, with {@link #trustCertificates},
         * that file's).
         */
        public Builder useTls() {
            this.tls = true;
            return this;
        }

        /** TLS, trusting the CA certificates of this PEM file (instead of the JDK's). */
        public Builder trustCertificates(Path caPem) {
            this.trustCertificates = readable("trust certificates", caPem);
            return this;
        }

        /** TLS, presenting this client certificate chain and PKCS#8 key (PEM) for mTLS. */
        public Builder clientCertificate(Path certificatePem, Path keyPem) {
            this.clientCertificate = readable("client certificate", certificatePem);
            this.clientKey = readable("client key", keyPem);
            return this;
        }

        /**
         * Sends {@code authorization: Bearer token} with every call; over plaintext only to a
         * loopback host, else {@link #build()} refuses it (see docs/client.md, "TLS").
         */
        public Builder token(String token) {
            if (token == null || token.isBlank()) {
                throw new IllegalArgumentException("token must not be blank");
            }
            this.token = token;
            return this;
        }

        /** Connects (lazily: the first call dials) and starts the refill. */
        public IdClient build() {
            if (targets.isEmpty()) {
                throw new IllegalArgumentException("no endpoints: call endpoints(...)");
            }
            SslContext tls = tls();
            if (token != null && tls == null) {
                for (String target : targets) {
                    if (!loopback(target)) {
                        throw new IllegalArgumentException("a token would travel in plaintext "
                                + "to " + target + ": call useTls() or trustCertificates(...)");
                    }
                }
            }
            List<Endpoint> built = new ArrayList<>();
            for (String target : targets) {
                built.add(new Endpoint(target, channel(target, tls)));
            }
            return new IdClient(this, built);
        }

        private ManagedChannel channel(String target, SslContext tls) {
            NettyChannelBuilder b = NettyChannelBuilder.forTarget(target)
                    .flowControlWindow(FLOW_CONTROL_WINDOW).directExecutor();
            if (tls == null) {
                b.usePlaintext();
            } else {
                b.sslContext(tls);
            }
            if (token != null) {
                Metadata headers = new Metadata();
                headers.put(Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER),
                        "Bearer " + token);
                b.intercept(MetadataUtils.newAttachHeadersInterceptor(headers));
            }
            return b.build();
        }

        private SslContext tls() {
            if (!tls && trustCertificates == null && clientCertificate == null) {
                return null;
            }
            try {
                SslContextBuilder b = GrpcSslContexts.forClient();
                if (trustCertificates != null) {
                    b.trustManager(trustCertificates.toFile());
                }
                if (clientCertificate != null) {
                    b.keyManager(clientCertificate.toFile(), clientKey.toFile());
                }
                return b.build();
            } catch (SSLException | IllegalArgumentException e) {
                throw new IllegalArgumentException("cannot read TLS files (trust "
                        + trustCertificates + ", certificate " + clientCertificate + ", key "
                        + clientKey + "): " + e.getMessage(), e);
            }
        }

        /**
         * Whether {@code target} ({@code host:port}, {@code [v6]:port}, {@code dns:///host:port},
         * {@code unix:path}) names this machine: localhost, 127.x.x.x, ::1 or a unix socket.
         */
        static boolean loopback(String target) {
            if (target.startsWith("unix:")) {
                return true;
            }
            String hostPort = target.contains(":/")
                    ? target.substring(target.lastIndexOf('/') + 1) : target;
            String host;
            if (hostPort.startsWith("[") && hostPort.indexOf(']') > 0) {
                host = hostPort.substring(1, hostPort.indexOf(']'));
            } else {
                int colon = hostPort.indexOf(':');
                host = colon >= 0 && colon == hostPort.lastIndexOf(':')
                        ? hostPort.substring(0, colon) : hostPort;
            }
            return host.equalsIgnoreCase("localhost") || host.equals("::1")
                    || host.matches("127\\.\\d{1,3}\\.\\d{1,3}\\.\\d{1,3}");
        }

        private static Duration positive(String what, Duration d) {
            if (d == null || d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException(what + " must be positive: " + d);
            }
            return d;
        }

        private static Path readable(String what, Path file) {
            if (file == null || !Files.isReadable(file)) {
                throw new IllegalArgumentException(what + " file is not readable: " + file);
            }
            return file;
        }
    }
}

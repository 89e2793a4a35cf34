package io.idmint.server;

import io.idmint.GeneratorStatus;
import io.idmint.IdGenerator;
import io.idmint.TimeSource;
import io.idmint.server.api.Access;
import io.idmint.server.api.IdService;
import io.idmint.server.api.InternalErrors;
import io.idmint.server.api.NodeInfo;
import io.idmint.server.api.RequestPipeline;
import io.idmint.server.api.SegmentService;
import io.idmint.server.config.Config;
import io.idmint.server.grpc.GrpcApi;
import io.idmint.server.grpc.GrpcHealth;
import io.idmint.server.grpc.GrpcIdStream;
import io.idmint.server.http.HttpApi;
import io.idmint.server.http.Route;
import io.idmint.server.mint.CodesAndFormats;
import io.idmint.server.mint.LeasedGenerator;
import io.idmint.server.mint.StaticPeerCheck;
import io.idmint.server.ops.AccessLog;
import io.idmint.server.ops.BuildInfo;
import io.idmint.server.ops.EventLog;
import io.idmint.server.ops.Logs;
import io.idmint.server.ops.Metrics;
import io.idmint.server.ops.PauseDetector;
import io.idmint.server.tls.ServerTls;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.internal.VertxInternal;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A running {@code idmint serve}: the generator, the segment generator and its store
 * ({@link SegmentService}), HTTP on Vert.x (one {@link HttpApi} per event loop, one event loop
 * per core) and gRPC, started together and stopped together. Used by
 * {@link ServeCommand} and, in-process, by the tests.
 */
public final class Server implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(Server.class.getName());

    private final LeasedGenerator minter;
    /** The static.peers check, or null. */
    private final StaticPeerCheck peers;
    private final SegmentService segments;
    private final IdService service;
    private final Vertx vertx;
    private final List<String> deployments;
    private final io.grpc.Server grpc;
    private final GrpcHealth health;
    private final GrpcIdStream.Pauses pauses;
    private final PauseDetector stood;
    private final String host;
    private final int httpPort;
    private final Duration grace;
    private final TimeSource time;
    /** The access log, or null. */
    private final AccessLog access;
    private final Metrics metrics;
    /** The TLS files, or null when the node serves plaintext. */
    private final ServerTls tls;
    private final CountDownLatch closed = new CountDownLatch(1);
    private boolean closing;

    private Server(LeasedGenerator minter, StaticPeerCheck peers, SegmentService segments,
            IdService service, Vertx vertx, List<String> deployments, io.grpc.Server grpc,
            GrpcHealth health, GrpcIdStream.Pauses pauses, PauseDetector stood, String host,
            int httpPort, Duration grace, TimeSource time, AccessLog access, Metrics metrics,
            ServerTls tls) {
        this.minter = minter;
        this.peers = peers;
        this.segments = segments;
        this.service = service;
        this.vertx = vertx;
        this.deployments = deployments;
        this.grpc = grpc;
        this.health = health;
        this.pauses = pauses;
        this.stood = stood;
        this.host = host;
        this.httpPort = httpPort;
        this.grace = grace;
        this.time = time;
        this.access = access;
        this.metrics = metrics;
        this.tls = tls;
    }

    /**
     * Opens the generator and the segment store and starts listening. A generator that cannot
     * get a worker yet, or a segment store that is down, does not stop the start: the server
     * answers 503 until it has one.
     *
     * @param warn hears warnings for the operator (codes.dev, a segment store not answering,
     *     TLS files refused on reload)
     * @throws IllegalArgumentException naming a bad setting, or a TLS file that is wrong
     * @throws IllegalStateException when the registry refuses this node or a port is taken
     */
    static Server start(Config config, java.util.function.Consumer<String> warn) {
        return start(config, warn, ServerTls.PERIOD);
    }

    /**
     * As {@link #start(Config, java.util.function.Consumer)}, with the TLS files read again every
     * {@code tlsPeriod}: tests that reload them by hand pass one that never comes.
     */
    static Server start(Config config, java.util.function.Consumer<String> warn,
            Duration tlsPeriod) {
        CodesAndFormats formats = CodesAndFormats.fromConfig(config, warn);
        Metrics metrics = new Metrics(buildInfo(config));
        metrics.bindHttpRoutes(Route.labels());
        TimeSource time = TimeSource.system();
        String host = config.get(Config.BIND);
        Duration grace = config.get(Config.SHUTDOWN_GRACE);
        long rate = config.get(Config.RATE_LIMIT);
        int maxCount = config.get(Config.MAX_COUNT);
        if (rate > 0 && rate < maxCount) {
            throw new IllegalArgumentException("rate-limit " + rate + " must be 0 or at least "
                    + "max-count (" + maxCount + "): a request for max-count IDs could never pass");
        }
        ServerTls tls;
        try {
            tls = ServerTls.open(config, time, warn, metrics, tlsPeriod);
        } catch (RuntimeException e) {
            metrics.close();
            throw e;
        }
        EventLog events = new EventLog(metrics, config.get(Config.CLOCK_MAX_WAIT),
                config.get(Config.CLOCK_MAX_FORWARD_STEP));
        SegmentService segments = SegmentService.open(config, warn);
        metrics.bindSegments(segments::stats);
        metrics.bindRefusals("segment_tags", segments, SegmentService::refusedTags);
        LeasedGenerator minter;
        try {
            minter = LeasedGenerator.open(config, config.get(Config.WORKERS), events);
        } catch (RuntimeException e) {
            events.startFailed();
            segments.close();
            closeTls(tls);
            metrics.close();
            throw e;
        }
        Vertx vertx = null;
        io.grpc.Server grpc = null;
        GrpcHealth health = null;
        GrpcIdStream.Pauses pauses = null;
        PauseDetector stood = null;
        StaticPeerCheck peers = null;
        AccessLog access = null;
        try {
            NodeInfo node = NodeInfo.of(config, time.currentTimeMillis());
            IdGenerator ids = minter.ids();
            if (config.get(Config.STATIC_PEERS) != null) {
                if (!config.get(Config.REGISTRY).startsWith("static:")) {
                    throw new IllegalArgumentException("static.peers checks the workers of the "
                            + "static: registry, which is one host only; registry "
                            + node.registry() + " already keeps workers unique across hosts: "
                            + "unset static.peers");
                }
                if (tls != null) {
                    throw new IllegalArgumentException("static.peers asks the other nodes over "
                            + "plain HTTP, which a node with tls.cert does not answer: use a "
                            + "shared registry (etcd://, zk://, jdbc:) for TLS nodes");
                }
                peers = new StaticPeerCheck(ids, config.get(Config.STATIC_PEERS), node.name(),
                        node.id(), config.get(Config.AUTH_TOKEN));
                ids = peers;
            }
            IdService service = new IdService(ids, config.get(Config.MAX_COUNT), n -> {
                metrics.issued(n);
                events.issued();
            }, events::refused);
            metrics.bind(service::status);
            events.status(service::status);
            access = AccessLog.open(config.get(Config.LOG_ACCESS),
                    Logs.formatter(config.get(Config.LOG_FORMAT)));
            RequestPipeline pipeline = new RequestPipeline(new Access(
                    config.get(Config.AUTH_TOKEN), config.get(Config.AUTH_ADMIN_TOKEN),
                    config.get(Config.RATE_LIMIT), time, metrics::rateLimitShared), access,
                    new InternalErrors(time));
            int loops = Runtime.getRuntime().availableProcessors();
            vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(loops));
            ConnectionLimits limits = ConnectionLimits.of(config, time, metrics, warn,
                    (VertxInternal) vertx);
            // A pause of the whole process is logged once as such, and is no blocked thread.
            stood = new PauseDetector(System::nanoTime, events::paused, true);
            ((VertxInternal) vertx).blockedThreadChecker().setThreadBlockedHandler(stood::blocked);
            Vertx v = vertx;
            vertx.setPeriodic(1000, t -> {
                events.checkClock();
                limits.http().closeIdle();
            });
            // Port 0 asks for any free port; Vert.x shares one random port among the instances
            // only when it is asked for as a negative port.
            int configured = config.get(Config.HTTP_PORT);
            int listen = configured == 0 ? -1 : configured;
            List<HttpApi> instances = new CopyOnWriteArrayList<>();
            List<String> deployments = List.of(await(vertx.deployVerticle(() -> {
                HttpApi api = new HttpApi(service, formats, segments, pipeline, metrics, time,
                        host, listen, grace, node, config.get(Config.LEAF_COMPAT), tls,
                        limits.http());
                instances.add(api);
                return api;
            }, new DeploymentOptions().setInstances(loops)), "listen for HTTP on " + host + ":"
                    + configured));
            int port = instances.get(0).port();
            health = new GrpcHealth(() -> service.status().ready());
            pauses = new GrpcIdStream.Pauses();
            try {
                grpc = GrpcApi.start(service, formats, segments, pipeline, health, pauses, host,
                        config.get(Config.GRPC_PORT), tls == null ? null : tls.grpc(),
                        limits.grpc(), metrics);
            } catch (IOException e) {
                throw new IllegalStateException("cannot listen for gRPC on " + host + ":"
                        + config.get(Config.GRPC_PORT) + ": " + e.getMessage(), e);
            }
            return new Server(minter, peers, segments, service, v, deployments, grpc, health,
                    pauses, stood, host, port, grace, time, access, metrics, tls);
        } catch (RuntimeException e) {
            // Before the minter closes: its release comes after the lines of the start, which
            // are logged now if the failure came before the status was known.
            events.status(minter.ids()::status);
            if (peers != null) {
                peers.close();
            }
            if (health != null) {
                health.drain();
            }
            if (grpc != null) {
                grpc.shutdownNow();
            }
            if (pauses != null) {
                pauses.drain();
            }
            if (vertx != null) {
                vertx.close();
            }
            if (stood != null) {
                stood.close();
            }
            if (access != null) {
                access.close();
            }
            segments.close();
            minter.close();
            closeTls(tls);
            metrics.close();
            throw e;
        }
    }

    private static void closeTls(ServerTls tls) {
        if (tls != null) {
            tls.close();
        }
    }

    /** The labels of {@code idmint_build_info}. */
    private static java.util.Map<String, String> buildInfo(Config config) {
        java.util.Properties p;
        try {
            p = BuildInfo.properties();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return java.util.Map.of("version", p.getProperty("version", "unknown"),
                "commit", p.getProperty("commit", "unknown"),
                "java_version", System.getProperty("java.version"),
                "layout", config.get(Config.LAYOUT).toString());
    }

    private static String await(Future<String> f, String what) {
        try {
            return f.toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw new IllegalStateException("cannot " + what + ": " + e.getCause().getMessage(),
                    e.getCause());
        } catch (TimeoutException e) {
            throw new IllegalStateException("cannot " + what + ": no answer in 30 s", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while trying to " + what, e);
        }
    }

    public int httpPort() {
        return httpPort;
    }

    int grpcPort() {
        return grpc.getPort();
    }

    /** The line {@code serve} prints once it is up; tests read the ports from it. */
    String banner() {
        GeneratorStatus s = service.status();
        String h = host.contains(":") ? "[" + host + "]" : host;
        String workers = s.workers().size() == 1
                ? "worker " + (s.workerId() < 0 ? "none yet: " + s.detail() : s.workerId())
                : "workers " + String.join(",", s.workers().stream().map(w -> w.workerId() < 0
                        ? "none yet" : Integer.toString(w.workerId())).toList());
        String secured = tls == null ? "" : tls.mutual() ? " with mutual TLS" : " with TLS";
        return "idmint serving " + (tls == null ? "http" : "https") + "://" + h + ":" + httpPort
                + " grpc " + h + ":" + grpcPort() + secured + " (datacenter "
                + (s.datacenterId() < 0 ? "none yet" : s.datacenterId()) + ", " + workers
                + ", layout "
                + service.layout() + ")";
    }

    /** The TLS files, or null when this node serves plaintext. */
    ServerTls tls() {
        return tls;
    }

    /** Blocks until {@link #close()} has finished. */
    void awaitClosed() throws InterruptedException {
        closed.await();
    }

    /**
     * Stops gracefully: both listeners stop accepting at once, requests and calls in flight get
     * up to the grace period to finish, then the segment generator and store are closed and the
     * worker is released with its final HWM. Safe to call twice and from two threads; the second
     * call waits for the first.
     */
    @Override
    public void close() {
        synchronized (this) {
            if (closing) {
                awaitQuietly();
                return;
            }
            closing = true;
        }
        long deadline = io.idmint.spi.Durations.deadlineNanos(time.nanoTime(), grace);
        try {
            // Probes see NOT_SERVING while calls in flight finish.
            health.drain();
            grpc.shutdown();
            // Streams paused by the rate limit would hold the drain for the whole grace.
            pauses.drain();
            List<Future<Void>> undeploys = new ArrayList<>();
            for (String id : deployments) {
                undeploys.add(vertx.undeploy(id));
            }
            for (Future<Void> f : undeploys) {
                awaitUntil(f, deadline);
            }
            if (!grpc.awaitTermination(Math.max(0, deadline - time.nanoTime()),
                    TimeUnit.NANOSECONDS)) {
                grpc.shutdownNow();
            }
            awaitUntil(vertx.close(), time.nanoTime() + TimeUnit.SECONDS.toNanos(5));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            grpc.shutdownNow();
        } finally {
            stood.close();
            try {
                if (access != null) {
                    access.close();
                }
                segments.close();
            } finally {
                if (peers != null) {
                    peers.close();
                }
                minter.close();
                closeTls(tls);
                metrics.close();
                closed.countDown();
            }
        }
    }

    private void awaitUntil(Future<?> f, long deadlineNanos) throws InterruptedException {
        try {
            f.toCompletionStage().toCompletableFuture()
                    .get(Math.max(0, deadlineNanos - time.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (ExecutionException | TimeoutException e) {
            // Past the grace period or failed: closing Vert.x below closes what is left.
            LOG.log(Level.WARNING, "HTTP shutdown did not finish cleanly: " + e);
        }
    }

    private void awaitQuietly() {
        try {
            closed.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}

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
import io.idmint.server.mint.ClaimingGenerator;
import io.idmint.server.mint.CodesAndFormats;
import io.idmint.server.mint.StaticPeerCheck;
import io.idmint.server.ops.AccessLog;
import io.idmint.server.ops.BuildInfo;
import io.idmint.server.ops.EventLog;
import io.idmint.server.ops.Logs;
import io.idmint.server.ops.Metrics;
import io.idmint.server.ops.PauseDetector;
import io.idmint.server.ops.ServeAddress;
import io.idmint.server.tls.ServerTls;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.file.FileSystemOptions;
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
 * per core) and gRPC, stopped together. They start together too, except the generator's worker
 * claim, which starts once the server listens and runs off the start path
 * ({@link ClaimingGenerator}). Used by {@link ServeCommand} and, in-process, by the tests.
 */
public final class Server implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(Server.class.getName());

    private final IdService service;
    private final Vertx vertx;
    private final List<String> deployments;
    private final io.grpc.Server grpc;
    private final GrpcHealth health;
    private final GrpcIdStream.Pauses pauses;
    private final String host;
    private final int httpPort;
    private final Duration grace;
    private final TimeSource time;
    /** The TLS files, or null when the node serves plaintext. */
    private final ServerTls tls;
    /** Everything the start opened, closed in reverse once the listeners have drained. */
    private final ResourceStack opened;
    /** The generator, whose claim runs while the server listens. */
    private final ClaimingGenerator minter;
    private final CountDownLatch closed = new CountDownLatch(1);
    private boolean closing;

    private Server(IdService service, Vertx vertx, List<String> deployments, io.grpc.Server grpc,
            GrpcHealth health, GrpcIdStream.Pauses pauses, int httpPort, Config config,
            TimeSource time, ServerTls tls, ResourceStack opened, ClaimingGenerator minter) {
        this.service = service;
        this.vertx = vertx;
        this.deployments = deployments;
        this.grpc = grpc;
        this.health = health;
        this.pauses = pauses;
        this.host = config.get(Config.BIND);
        this.httpPort = httpPort;
        this.grace = config.get(Config.SHUTDOWN_GRACE);
        this.time = time;
        this.tls = tls;
        this.opened = opened;
        this.minter = minter;
    }

    /**
     * Starts listening ({@link #listen(Config, java.util.function.Consumer)}), then waits for the
     * worker claim to answer ({@link #awaitClaim()}): the server returned holds a worker, or is
     * retrying a registry that cannot give one yet.
     *
     * @param warn hears warnings for the operator (codes.dev, a segment store not answering,
     *     TLS files refused on reload)
     * @throws IllegalArgumentException naming a bad setting, or a TLS file that is wrong
     * @throws IllegalStateException when the registry refuses this node or a port is taken
     */
    public static Server start(Config config, java.util.function.Consumer<String> warn) {
        return start(config, warn, ServerTls.PERIOD);
    }

    /**
     * As {@link #start(Config, java.util.function.Consumer)}, with the TLS files read again every
     * {@code tlsPeriod}: tests that reload them by hand pass one that never comes.
     */
    static Server start(Config config, java.util.function.Consumer<String> warn,
            Duration tlsPeriod) {
        Server server = listen(config, warn, tlsPeriod);
        try {
            server.awaitClaim();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            server.close();
            throw new IllegalStateException("interrupted while claiming a worker ID", e);
        }
        return server;
    }

    /**
     * Opens the segment store, listens (HTTP, gRPC, health, segments, the status page), and only
     * then starts claiming the generator's worker, off the start path ({@link ClaimingGenerator}):
     * a claim that waits (a ZooKeeper {@code leaf-name} node restarted after a kill waits for its
     * previous session to expire, a registry that is down takes its call timeout) holds nothing
     * up. Until a worker is held the server is live and not ready, and ID calls answer 503
     * (gRPC UNAVAILABLE) with the claim as the reason; a segment store that is down does not
     * stop the start either. The rules that tie settings together are checked before anything
     * opens, so a start they refuse has claimed nothing.
     *
     * @throws IllegalArgumentException naming a bad setting, or a TLS file that is wrong
     * @throws IllegalStateException when a port is taken
     */
    static Server listen(Config config, java.util.function.Consumer<String> warn) {
        return listen(config, warn, ServerTls.PERIOD);
    }

    /**
     * As {@link #listen(Config, java.util.function.Consumer)}, with the TLS files read again
     * every {@code tlsPeriod}. Each part is pushed on a {@link ResourceStack} as it opens; a
     * start that fails closes what it opened, in reverse, and a running server does the same
     * once its listeners have drained.
     */
    static Server listen(Config config, java.util.function.Consumer<String> warn,
            Duration tlsPeriod) {
        config.checkServe();
        CodesAndFormats formats = CodesAndFormats.fromConfig(config, warn);
        TimeSource time = TimeSource.system();
        ResourceStack opened = new ResourceStack();
        Metrics metrics = opened.push(new Metrics(buildInfo(config)));
        metrics.bindHttpRoutes(Route.labels());
        try {
            ServerTls tls = opened.push(ServerTls.open(config, time, warn, metrics, tlsPeriod));
            EventLog events = new EventLog(metrics, config.get(Config.CLOCK_MAX_WAIT),
                    config.get(Config.CLOCK_MAX_FORWARD_STEP));
            SegmentService segments = opened.push(SegmentService.open(config, warn));
            metrics.bindSegments(segments::stats);
            metrics.bindSerials(segments::serialStats);
            metrics.bindRefusals("segment_tags", segments, SegmentService::refusedTags);
            // Nothing is claimed yet: start() below claims once the server listens.
            ClaimingGenerator minter = opened.push(new ClaimingGenerator(config,
                    config.get(Config.WORKERS), events));
            NodeInfo node = NodeInfo.of(config, time.currentTimeMillis());
            IdGenerator ids = minter;
            StaticPeerCheck peerCheck = null;
            if (config.get(Config.STATIC_PEERS) != null) {
                peerCheck = opened.push(new StaticPeerCheck(ids, config.get(Config.STATIC_PEERS),
                        node.name(), node.id(), config.get(Config.AUTH_TOKEN)));
                ids = peerCheck;
            }
            EventLog heard = events;
            IdService service = new IdService(ids, config.get(Config.MAX_COUNT), n -> {
                metrics.issued(n);
                heard.issued();
            }, events::refused);
            metrics.bind(service::status);
            AccessLog access = opened.push(AccessLog.open(config.get(Config.LOG_ACCESS),
                    Logs.formatter(config.get(Config.LOG_FORMAT))));
            RequestPipeline pipeline = new RequestPipeline(new Access(
                    config.get(Config.AUTH_TOKEN), config.get(Config.AUTH_ADMIN_TOKEN),
                    config.get(Config.RATE_LIMIT), time, metrics::rateLimitShared), access,
                    new InternalErrors(time));
            // A pause of the whole process is logged once as such, and is no blocked thread.
            PauseDetector stood = opened.push(
                    new PauseDetector(System::nanoTime, events::paused, true));
            int loops = Runtime.getRuntime().availableProcessors();
            // Vert.x's file resolver (classpath files extracted to a vertx-cache directory in
            // java.io.tmpdir) is off: nothing here is served from files, and a process killed
            // with -9 would leave its directory behind.
            Vertx vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(loops)
                    .setFileSystemOptions(new FileSystemOptions()
                            .setClassPathResolvingEnabled(false).setFileCachingEnabled(false)));
            opened.push(vertx::close);
            ConnectionLimits limits = ConnectionLimits.of(config, time, metrics, warn,
                    (VertxInternal) vertx);
            ((VertxInternal) vertx).blockedThreadChecker().setThreadBlockedHandler(stood::blocked);
            vertx.setPeriodic(1000, t -> {
                heard.checkClock();
                limits.http().closeIdle();
            });
            List<HttpApi> instances = new CopyOnWriteArrayList<>();
            List<String> deployments = listenHttp(config, vertx, loops, () -> {
                HttpApi api = new HttpApi(service, formats, segments, pipeline, metrics, time,
                        config.get(Config.BIND), httpListenPort(config),
                        config.get(Config.SHUTDOWN_GRACE), node, config.get(Config.LEAF_COMPAT),
                        tls, limits.http());
                instances.add(api);
                return api;
            });
            GrpcHealth health = new GrpcHealth(() -> service.status().ready());
            opened.push(health::drain);
            GrpcIdStream.Pauses pauses = new GrpcIdStream.Pauses();
            opened.push(pauses::drain);
            io.grpc.Server grpc = listenGrpc(config, service, formats, segments, pipeline, health,
                    pauses, tls, limits, metrics);
            opened.push(grpc::shutdownNow);
            Server server = new Server(service, vertx, deployments, grpc, health, pauses,
                    instances.get(0).port(), config, time, tls, opened, minter);
            if (config.get(Config.SEGMENT_STORE).equals(io.idmint.jdbc.JdbcRangeStores
                    .DEFAULT_URL)) {
                // The segment CLI on this data directory cannot open the store this server
                // holds: it sends the user here, at the port this server really listens on.
                opened.push(ServeAddress.write(config.get(Config.DATA_DIR), server.localUrl()));
            }
            StaticPeerCheck peers = peerCheck;
            minter.start(() -> {
                // The lease lines of the claim are logged now, with the worker it holds.
                heard.status(service::status);
                if (peers != null) {
                    peers.checkNow(); // with the worker held: a check decides only then
                }
            }, failure -> heard.startFailed());
            return server;
        } catch (RuntimeException e) {
            opened.closeAfter(e);
            throw e;
        }
    }

    /**
     * Waits until the worker claim has answered: the generator holds its worker, or retries a
     * registry that cannot give one yet by itself (a pool that is full, a registry that is
     * down). A claim that failed for good (a setting the registry refuses, fewer free workers
     * than {@code workers}) closes the server, and its exception is thrown here, as a start
     * that fails.
     *
     * @return true once the claim answered; false when the server was closed first
     * @throws IllegalArgumentException or IllegalStateException: why the claim failed for good
     */
    boolean awaitClaim() throws InterruptedException {
        try {
            minter.answered().get();
            return true;
        } catch (java.util.concurrent.CancellationException e) {
            return false;
        } catch (ExecutionException e) {
            close();
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException r) {
                throw r;
            }
            throw new IllegalStateException(cause.getMessage(), cause);
        }
    }

    /**
     * Port 0 asks for any free port; Vert.x shares one random port among the instances only
     * when it is asked for as a negative port.
     */
    private static int httpListenPort(Config config) {
        int configured = config.get(Config.HTTP_PORT);
        return configured == 0 ? -1 : configured;
    }

    /** One {@link HttpApi} per event loop, listening together. */
    private static List<String> listenHttp(Config config, Vertx vertx, int loops,
            java.util.function.Supplier<HttpApi> api) {
        return List.of(await(vertx.deployVerticle(api::get,
                new DeploymentOptions().setInstances(loops)), "listen for HTTP on "
                + config.get(Config.BIND) + ":" + config.get(Config.HTTP_PORT)));
    }

    private static io.grpc.Server listenGrpc(Config config, IdService service,
            CodesAndFormats formats, SegmentService segments, RequestPipeline pipeline,
            GrpcHealth health, GrpcIdStream.Pauses pauses, ServerTls tls,
            ConnectionLimits limits, Metrics metrics) {
        String host = config.get(Config.BIND);
        try {
            return GrpcApi.start(service, formats, segments, pipeline, health, pauses, host,
                    config.get(Config.GRPC_PORT), tls == null ? null : tls.grpc(),
                    limits.grpc(), metrics);
        } catch (IOException e) {
            throw new IllegalStateException("cannot listen for gRPC on " + host + ":"
                    + config.get(Config.GRPC_PORT) + ": " + e.getMessage(), e);
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

    /**
     * The HTTP address a client on this host reaches this server at: a wildcard bind becomes the
     * loopback address of its family.
     */
    String localUrl() {
        String h = host.equals("0.0.0.0") ? "127.0.0.1" : host.equals("::") ? "::1" : host;
        return (tls == null ? "http" : "https") + "://" + (h.contains(":") ? "[" + h + "]" : h)
                + ":" + httpPort;
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
     * up to the grace period to finish, then what the start opened closes in reverse: the access
     * log, the peer check, the worker (released with its final HWM), the segment generator and
     * store, TLS and the metrics. Safe to call twice and from two threads; the second
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
        long deadline = io.idmint.spi.support.Durations.deadlineNanos(time.nanoTime(), grace);
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
            try {
                opened.close();
            } finally {
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

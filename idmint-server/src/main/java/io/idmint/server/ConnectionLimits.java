package io.idmint.server;

import io.idmint.TimeSource;
import io.idmint.server.config.Config;
import io.idmint.server.grpc.GrpcLimits;
import io.idmint.server.net.ConnectionLimit;
import io.idmint.server.ops.Metrics;
import io.vertx.core.internal.VertxInternal;
import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;
import java.time.Duration;
import java.util.function.Consumer;

/**
 * The connection limits of one {@code serve}, from its configuration: HTTP's and gRPC's, both
 * inside the file descriptors the process may open, with {@value #RESERVED_FILES} kept back for
 * what the worker lease and the stores need (their connections, the state files) and the jar,
 * logs and JDK. A node that callers can make run out of descriptors loses its lease; one that
 * refuses or recycles connections keeps it.
 *
 * @param http HTTP's connections
 * @param grpc gRPC's connections and unread replies
 */
record ConnectionLimits(ConnectionLimit http, GrpcLimits grpc) {

    /** File descriptors no caller can take. */
    static final int RESERVED_FILES = 1024;

    /**
     * Reads the limits; when the process may open fewer files than they need, lowers both in
     * proportion and says so in {@code warn}.
     */
    static ConnectionLimits of(Config config, TimeSource time, Metrics metrics,
            Consumer<String> warn, VertxInternal loops) {
        int[] fitted = fit(config.get(Config.HTTP_MAX_CONNECTIONS),
                config.get(Config.GRPC_MAX_CONNECTIONS), maxFiles(), warn);
        int http = fitted[0];
        int grpc = fitted[1];
        Duration idle = config.get(Config.IDLE_TIMEOUT);
        ConnectionLimit httpLimit = new ConnectionLimit("http", http, idle, time,
                metrics::connectionClosed);
        ConnectionLimit grpcConnections = new ConnectionLimit("grpc", grpc, idle, time,
                metrics::connectionClosed);
        GrpcLimits grpcLimits = new GrpcLimits(grpcConnections,
                config.get(Config.GRPC_MAX_CALLS_PER_CONNECTION),
                config.get(Config.GRPC_MAX_WAITING_CALLS),
                config.get(Config.GRPC_MAX_BUFFERED) * 1024L * 1024L, loops);
        metrics.bindConnections("http", httpLimit, ConnectionLimit::open);
        metrics.bindConnections("grpc", grpcConnections, ConnectionLimit::open);
        metrics.bindGrpcBuffered(grpcLimits, GrpcLimits::buffered);
        metrics.bindRefusals("grpc_buffered", grpcLimits, GrpcLimits::refused);
        metrics.bindRefusals("grpc_waiting", grpcLimits, GrpcLimits::refusedWaiting);
        return new ConnectionLimits(httpLimit, grpcLimits);
    }

    /**
     * The two limits within {@code files} less {@link #RESERVED_FILES}: as configured when they
     * fit (or the file limit is unknown, -1), else lowered in proportion, at least 16 each, with
     * a warning.
     *
     * @return HTTP's and gRPC's limit
     */
    static int[] fit(int http, int grpc, long files, Consumer<String> warn) {
        if (files < 0 || http + (long) grpc + RESERVED_FILES <= files) {
            return new int[] {http, grpc};
        }
        long room = Math.max(32, files - RESERVED_FILES);
        int h = (int) Math.max(16, room * http / (http + (long) grpc));
        int g = (int) Math.max(16, room - h);
        warn.accept("this process may open " + files + " files, fewer than "
                + "http.max-connections " + http + " + grpc.max-connections " + grpc + " + "
                + RESERVED_FILES + " kept for the lease and stores: serving at most " + h
                + " HTTP and " + g + " gRPC connections (raise ulimit -n or LimitNOFILE, or "
                + "lower the two)");
        return new int[] {h, g};
    }

    /** The most file descriptors this process may open, or -1 where the JDK cannot say. */
    private static long maxFiles() {
        OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        return os instanceof com.sun.management.UnixOperatingSystemMXBean unix
                ? unix.getMaxFileDescriptorCount() : -1;
    }
}

package io.idmint.server.grpc;

import io.grpc.BindableService;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.protobuf.services.HealthStatusManager;
import io.idmint.grpc.v1.IdServiceGrpc;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * {@code grpc.health.v1.Health} for gRPC probes (see docs/http-grpc.md): the overall status
 * ({@code ""}) and {@code idmint.v1.IdService} are SERVING exactly when {@code /health/ready}
 * answers 200, checked every {@link #POLL}, so Check and Watch follow a lease that is lost or
 * regained. {@link #drain()} turns both NOT_SERVING for good when the server starts to stop.
 */
public final class GrpcHealth {

    private static final System.Logger LOG = System.getLogger(GrpcHealth.class.getName());

    /** How often readiness is read: a probe sees a change at most this late. */
    static final Duration POLL = Duration.ofMillis(200);

    private final HealthStatusManager manager = new HealthStatusManager();
    private final BooleanSupplier ready;
    /** Whether the last readiness check threw (logged once per run of failures). */
    private boolean failing;
    /** Whether {@link #drain} has run. */
    private boolean drained;
    private final ScheduledExecutorService poller = Executors.newSingleThreadScheduledExecutor(
            r -> {
                Thread t = new Thread(r, "idmint-grpc-health");
                t.setDaemon(true);
                return t;
            });

    /** Starts following {@code ready}, the same answer {@code /health/ready} gives. */
    public GrpcHealth(BooleanSupplier ready) {
        this.ready = ready;
        update();
        poller.scheduleWithFixedDelay(this::update, POLL.toMillis(), POLL.toMillis(),
                TimeUnit.MILLISECONDS);
    }

    BindableService service() {
        return manager.getHealthService();
    }

    /**
     * Reads readiness once. A supplier that throws means NOT_SERVING, and polling goes on: an
     * exception escaping here would end the schedule and freeze the last status.
     */
    private void update() {
        ServingStatus status;
        try {
            status = ready.getAsBoolean() ? ServingStatus.SERVING : ServingStatus.NOT_SERVING;
            failing = false;
        } catch (RuntimeException e) {
            if (!failing) {
                failing = true;
                LOG.log(System.Logger.Level.WARNING, "gRPC health: the readiness check failed, "
                        + "NOT_SERVING until it answers: " + e);
            }
            status = ServingStatus.NOT_SERVING;
        }
        // The manager tells watchers only about changes, so setting an unchanged status is free.
        // The server as a whole ("") never claims more than the ID service: SERVING is set on
        // the service first, NOT_SERVING on "" first (a check of the service right after a
        // watch of "" saw SERVING found it NOT_SERVING in between, GrpcProbesIT).
        if (status == ServingStatus.SERVING) {
            manager.setStatus(IdServiceGrpc.SERVICE_NAME, status);
            manager.setStatus(HealthStatusManager.SERVICE_NAME_ALL_SERVICES, status);
        } else {
            manager.setStatus(HealthStatusManager.SERVICE_NAME_ALL_SERVICES, status);
            manager.setStatus(IdServiceGrpc.SERVICE_NAME, status);
        }
    }

    /**
     * NOT_SERVING from now on, whatever readiness says: the server is draining. A second call
     * does nothing (gRPC's health service logs a stack trace when told twice).
     */
    public void drain() {
        synchronized (this) {
            if (drained) {
                return;
            }
            drained = true;
        }
        poller.shutdownNow();
        try {
            // An update running now must not set SERVING after the terminal state.
            poller.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        manager.enterTerminalState();
    }
}

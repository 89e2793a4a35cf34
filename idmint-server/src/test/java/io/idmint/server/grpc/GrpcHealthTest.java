package io.idmint.server.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.stub.StreamObserver;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;

/** {@link GrpcHealth} when the readiness check itself fails. */
class GrpcHealthTest {

    @Test
    void update_readinessThrows_notServingAndKeepsPolling() throws Exception {
        AtomicInteger calls = new AtomicInteger();
        CountDownLatch polledAfterFailure = new CountDownLatch(4);
        GrpcHealth health = new GrpcHealth(() -> {
            polledAfterFailure.countDown();
            if (calls.incrementAndGet() == 1) {
                return true;
            }
            throw new IllegalStateException("registry gone");
        });
        try {
            assertThat(polledAfterFailure.await(30, TimeUnit.SECONDS))
                    .as("polls go on after the check threw").isTrue();
            assertThat(check(health, "")).isEqualTo(ServingStatus.NOT_SERVING);
            assertThat(check(health, "idmint.v1.IdService")).isEqualTo(ServingStatus.NOT_SERVING);
        } finally {
            health.drain();
        }
    }

    /**
     * Whenever a watcher of the whole server ("") hears a status, the ID service already has
     * it: "" SERVING never comes before the service's, NOT_SERVING never after (a Check of the
     * service right after a Watch of "" saw SERVING found it NOT_SERVING, GrpcProbesIT).
     */
    @Test
    void watchOfTheServer_neverRunsAheadOfTheIdService() throws Exception {
        AtomicInteger polls = new AtomicInteger();
        // Not ready, ready, not ready, ready, …: every poll a change.
        GrpcHealth health = new GrpcHealth(() -> polls.incrementAndGet() % 2 == 0);
        List<String> seen = new CopyOnWriteArrayList<>();
        CountDownLatch heard = new CountDownLatch(6);
        try {
            ((HealthGrpc.AsyncService) health.service()).watch(
                    HealthCheckRequest.newBuilder().setService("").build(),
                    new StreamObserver<HealthCheckResponse>() {
                        @Override
                        public void onNext(HealthCheckResponse r) {
                            try {
                                seen.add(r.getStatus() + "/"
                                        + check(health, "idmint.v1.IdService"));
                            } catch (Exception e) {
                                seen.add(r.getStatus() + "/" + e);
                            }
                            heard.countDown();
                        }

                        @Override
                        public void onError(Throwable t) {
                        }

                        @Override
                        public void onCompleted() {
                        }
                    });
            assertThat(heard.await(30, TimeUnit.SECONDS)).as("statuses heard: %s", seen).isTrue();
        } finally {
            health.drain();
        }
        assertThat(seen).as("the server's status / the ID service's at that moment")
                .allMatch(s -> s.equals("SERVING/SERVING") || s.startsWith("NOT_SERVING/")
                        || s.startsWith("SERVICE_UNKNOWN/"))
                .anyMatch(s -> s.equals("SERVING/SERVING"));
    }

    /** Regression: the server drains it, then closes what it opened, which drains it again. */
    @Test
    void drain_twice_tellsGrpcOnce() {
        List<LogRecord> warnings = new CopyOnWriteArrayList<>();
        Logger grpc = Logger.getLogger("io.grpc.protobuf.services.HealthServiceImpl");
        Handler capture = new Handler() {
            @Override
            public void publish(LogRecord r) {
                warnings.add(r);
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        grpc.addHandler(capture);
        try {
            GrpcHealth health = new GrpcHealth(() -> true);
            health.drain();
            health.drain();
        } finally {
            grpc.removeHandler(capture);
        }
        assertThat(warnings).extracting(LogRecord::getMessage).isEmpty();
    }

    private static ServingStatus check(GrpcHealth health, String service) throws Exception {
        CompletableFuture<ServingStatus> answer = new CompletableFuture<>();
        ((HealthGrpc.AsyncService) health.service()).check(
                HealthCheckRequest.newBuilder().setService(service).build(),
                new StreamObserver<HealthCheckResponse>() {
                    @Override
                    public void onNext(HealthCheckResponse r) {
                        answer.complete(r.getStatus());
                    }

                    @Override
                    public void onError(Throwable t) {
                        answer.completeExceptionally(t);
                    }

                    @Override
                    public void onCompleted() {
                    }
                });
        return answer.get(10, TimeUnit.SECONDS);
    }
}

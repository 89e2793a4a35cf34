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

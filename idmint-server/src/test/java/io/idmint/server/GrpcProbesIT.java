package io.idmint.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.stub.StreamObserver;
import io.idmint.Layout;
import io.idmint.server.harness.IdmintProcesses;
import io.idmint.server.harness.IdmintProcesses.Node;
import io.idmint.server.harness.NodeTools;
import io.idmint.server.json.StrictJson;
import io.idmint.testkit.EtcdCluster;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * grpc.health.v1 and server reflection on a real {@code idmint serve} on a real etcd: grpc-js
 * (another stack, {@code src/test/node/grpc-probe.js}) lists the services and reads health, and
 * health follows readiness when etcd goes away and comes back, and on SIGTERM.
 */
class GrpcProbesIT {

    private static final String IDMINT = "idmint.v1.IdService";

    @TempDir
    Path dir;
    private EtcdCluster etcd;
    private IdmintProcesses procs;
    private ManagedChannel channel;

    @BeforeEach
    void start() {
        etcd = EtcdCluster.single();
        procs = new IdmintProcesses(dir);
    }

    @AfterEach
    void stop() throws InterruptedException {
        if (channel != null) {
            channel.shutdownNow();
        }
        procs.close();
        etcd.close();
    }

    private Node serve() throws Exception {
        Node node = procs.serve("a", Map.of(), RegistryFaultIT.serveArgs("etcd://"
                + etcd.endpoints() + "/idmint-it?timeout=1s", "probes",
                Layout.parse("time=41,sequence=12"), RegistryFaultIT.SHORT));
        node.awaitReady(Duration.ofSeconds(20));
        channel = ManagedChannelBuilder.forAddress("127.0.0.1", node.grpcPort).usePlaintext()
                .build();
        return node;
    }

    @Test
    void grpcJs_listsServicesThroughReflection_andReadsHealth() throws Exception {
        Node node = serve();

        String out = NodeTools.run("grpc-probe.js", "127.0.0.1:" + node.grpcPort,
                protos().toString());

        @SuppressWarnings("unchecked")
        Map<String, Object> r = (Map<String, Object>) StrictJson.parse(out.trim());
        List<String> services = List.of("grpc.health.v1.Health",
                "grpc.reflection.v1.ServerReflection", "grpc.reflection.v1alpha.ServerReflection",
                IDMINT);
        assertThat(r.get("v1")).as(out).isEqualTo(services);
        assertThat(r.get("v1alpha")).as(out).isEqualTo(services);
        assertThat(((Number) r.get("idmintFileDescriptors")).intValue()).as(out).isPositive();
        assertThat(r.get("health")).as(out).isEqualTo(Map.of("", "SERVING", IDMINT, "SERVING",
                "no.such.Service", "error NOT_FOUND"));
    }

    @Test
    void health_followsReadiness_whenEtcdGoesAndComesBack_andTurnsNotServingOnSigterm()
            throws Exception {
        Node node = serve();
        BlockingQueue<ServingStatus> watched = watch("");
        // gRPC health reads readiness every 200 ms (GrpcHealth.POLL): a watch opened just after
        // /health/ready turned 200 may first see NOT_SERVING, then SERVING.
        ServingStatus first = watched.poll(10, TimeUnit.SECONDS);
        assertThat(first == ServingStatus.SERVING ? first : watched.poll(10, TimeUnit.SECONDS))
                .isEqualTo(ServingStatus.SERVING);
        assertThat(check(IDMINT)).isEqualTo(ServingStatus.SERVING);

        etcd.stop(0);
        node.awaitNotReady(Duration.ofSeconds(20), "");
        awaitCheck(IDMINT, ServingStatus.NOT_SERVING);
        awaitCheck("", ServingStatus.NOT_SERVING);
        assertThat(watched.poll(10, TimeUnit.SECONDS)).isEqualTo(ServingStatus.NOT_SERVING);

        etcd.restartAll();
        node.awaitReady(Duration.ofSeconds(30));
        awaitCheck(IDMINT, ServingStatus.SERVING);
        assertThat(watched.poll(10, TimeUnit.SECONDS)).isEqualTo(ServingStatus.SERVING);

        node.process.destroy();
        assertThat(watched.poll(10, TimeUnit.SECONDS)).as(procs.describe("Watch on SIGTERM"))
                .isEqualTo(ServingStatus.NOT_SERVING);
        assertThat(node.process.waitFor(15, TimeUnit.SECONDS)).isTrue();
    }

    private ServingStatus check(String service) {
        return HealthGrpc.newBlockingStub(channel).withDeadlineAfter(5, TimeUnit.SECONDS)
                .check(HealthCheckRequest.newBuilder().setService(service).build()).getStatus();
    }

    /** Polls Check until it answers {@code status}: health is read every 200 ms. */
    private void awaitCheck(String service, ServingStatus status) throws InterruptedException {
        procs.await(Duration.ofSeconds(10), "Check(" + service + ") " + status,
                () -> check(service) == status, () -> check(service).toString());
    }

    /** Every status a Watch sends, in order. */
    private BlockingQueue<ServingStatus> watch(String service) {
        BlockingQueue<ServingStatus> seen = new LinkedBlockingQueue<>();
        HealthGrpc.newStub(channel).watch(HealthCheckRequest.newBuilder().setService(service)
                .build(), new StreamObserver<>() {
                    @Override
                    public void onNext(HealthCheckResponse r) {
                        seen.add(r.getStatus());
                    }

                    @Override
                    public void onError(Throwable t) {
                    }

                    @Override
                    public void onCompleted() {
                    }
                });
        return seen;
    }

    /** The health and reflection protos, from grpc-services, for grpc-js to load. */
    private Path protos() throws IOException {
        Path root = dir.resolve("protos");
        for (String p : List.of("grpc/health/v1/health.proto",
                "grpc/reflection/v1/reflection.proto",
                "grpc/reflection/v1alpha/reflection.proto")) {
            Path file = root.resolve(p);
            Files.createDirectories(file.getParent());
            try (InputStream in = HealthGrpc.class.getClassLoader().getResourceAsStream(p)) {
                assertThat(in).as(p + " in grpc-services").isNotNull();
                Files.copy(in, file);
            }
        }
        return root;
    }
}

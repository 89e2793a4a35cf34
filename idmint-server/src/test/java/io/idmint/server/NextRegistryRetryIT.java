package io.idmint.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.idmint.server.harness.IdmintProcesses;
import io.idmint.server.harness.IdmintProcesses.Run;
import io.idmint.testkit.EtcdCluster;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code idmint next} with a network registry that is unreachable for a moment when it starts:
 * its lease settings say it may ride out {@code lease.store-timeout} without the store, so it
 * waits for its first worker that long instead of failing on the first claim. Regression: it
 * used to check readiness once and exit 1 ("cannot mint IDs: etcd … did not answer …").
 */
class NextRegistryRetryIT {

    @TempDir
    Path tmp;

    private IdmintProcesses procs;
    private EtcdCluster etcd;

    @AfterEach
    void tearDown() throws InterruptedException {
        if (procs != null) {
            procs.close();
        }
        if (etcd != null) {
            etcd.close();
        }
    }

    @Test
    void next_storeBackWithinTheStoreTimeout_mintsInsteadOfExiting() throws Exception {
        procs = new IdmintProcesses(tmp);
        etcd = EtcdCluster.single();
        String registry = "etcd://" + etcd.endpoints() + "/idmint-it?timeout=1s";
        etcd.stop(0);
        AtomicReference<Throwable> restartFailure = new AtomicReference<>();
        int port = Integer.parseInt(etcd.endpoint(0).substring("127.0.0.1:".length()));
        Thread restart = new Thread(() -> {
            // Back once next has tried the store (and found it refusing), not after a guess at
            // how long a JVM takes to start.
            try (ServerSocket down = new ServerSocket(port, 50, InetAddress.getLoopbackAddress())) {
                down.setSoTimeout(30_000);
                down.accept().close();
            } catch (Throwable e) {
                restartFailure.set(e);
                return;
            }
            try {
                etcd.restartAll();
            } catch (Throwable e) {
                restartFailure.set(e);
            }
        });
        restart.start();
        long t0 = System.nanoTime();
        Run next = procs.run("next", Map.of(), "next", "-n", "1", "--registry", registry,
                "--namespace", "retry", "--lease-ttl", "30s", "--lease-keepalive", "1s",
                "--lease-store-timeout", "15s", "--lease-reservation", "1500ms");
        long tookMillis = (System.nanoTime() - t0) / 1_000_000;
        restart.join();
        assertThat(restartFailure.get()).as("etcd restarted").isNull();

        assertThat(next.exitCode()).as("exit of next after %d ms (etcd was back after its first "
                + "try; lease.store-timeout 15 s); stderr: %s", tookMillis, next.err()).isZero();
        assertThat(next.ids()).hasSize(1);
    }
}

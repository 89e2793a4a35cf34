package io.idmint.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idmint.WorkerRegistries;
import io.idmint.spi.RegistryException;
import io.idmint.spi.RegistryException.Kind;
import io.idmint.spi.WorkerRegistry;
import java.net.ServerSocket;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class ZkRegistryProviderTest {

    @Test
    void open_findsProviderByScheme_andConnectsLazily() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort(); // free now, so nothing answers there
        }
        try (WorkerRegistry r = WorkerRegistries.open("zk://127.0.0.1:" + port + "/x?timeout=300ms",
                Path.of("unused"))) {
            assertThat(r).isInstanceOf(ZkRegistry.class);
            long start = System.nanoTime();
            assertThatThrownBy(() -> r.list("ns"))
                    .isInstanceOf(RegistryException.class)
                    .hasMessageContaining("127.0.0.1:" + port)
                    .extracting(e -> ((RegistryException) e).kind()).isEqualTo(Kind.UNAVAILABLE);
            assertThat((System.nanoTime() - start) / 1_000_000).isLessThan(10_000);
        }
    }

    @Test
    void open_servesZkAndZks_andListsBoth_whenNoProviderServesTheScheme() {
        try (WorkerRegistry r = WorkerRegistries.open("zks://127.0.0.1:1/x", Path.of("unused"))) {
            assertThat(r).isInstanceOf(ZkRegistry.class);
        }
        assertThatThrownBy(() -> WorkerRegistries.open("zkx://h:1/x", Path.of("unused")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageEndingWith("no backend for scheme 'zkx' on the class path; "
                        + "available: static, zk, zks");
    }

    @Test
    void open_badUri_isIllegalArgument() {
        assertThatThrownBy(() -> WorkerRegistries.open("zk://h:1/x?color=red", Path.of("unused")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("color");
    }

    @Test
    void closed_registry_isUnavailable() {
        WorkerRegistry r = WorkerRegistries.open("zk://127.0.0.1:1", Path.of("unused"));
        r.close();
        assertThatThrownBy(() -> r.list("ns"))
                .isInstanceOf(RegistryException.class)
                .hasMessageContaining("closed");
    }
}

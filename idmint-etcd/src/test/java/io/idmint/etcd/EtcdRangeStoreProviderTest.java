package io.idmint.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idmint.segment.RangeStores;
import io.idmint.spi.RangeStore;
import io.idmint.spi.RegistryException;
import io.idmint.spi.RegistryException.Kind;
import java.net.ServerSocket;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class EtcdRangeStoreProviderTest {

    @Test
    void open_findsTheStoreByScheme_andConnectsOnFirstUse() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort(); // free now, so nothing answers there
        }
        try (RangeStore store = RangeStores.open("etcd://127.0.0.1:" + port + "/x?timeout=300ms",
                Path.of("unused"))) {
            assertThat(store).isInstanceOf(EtcdRangeStore.class);
            long start = System.nanoTime();
            assertThatThrownBy(() -> store.allocate("order", 1))
                    .isInstanceOf(RegistryException.class)
                    .hasMessageContaining("127.0.0.1:" + port)
                    .extracting(e -> ((RegistryException) e).kind()).isEqualTo(Kind.UNAVAILABLE);
            assertThat((System.nanoTime() - start) / 1_000_000).isLessThan(10_000);
        }
    }

    @Test
    void open_servesEtcdAndEtcds_andListsBoth_whenNoProviderServesTheScheme() {
        try (RangeStore store = RangeStores.open("etcds://127.0.0.1:1/x", Path.of("unused"))) {
            assertThat(store).isInstanceOf(EtcdRangeStore.class);
        }
        assertThatThrownBy(() -> RangeStores.open("etcdx://h:1/x", Path.of("unused")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageEndingWith("no backend for scheme 'etcdx' on the class path; "
                        + "available: etcd, etcds");
    }

    @Test
    void open_badUri_isIllegalArgument_namingTheBadPart() {
        assertThatThrownBy(() -> RangeStores.open("etcd://h:1/x?color=red", Path.of("unused")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'color'");
        assertThatThrownBy(() -> RangeStores.open("etcd://h:1/x y", Path.of("unused")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'/x y'");
        assertThatThrownBy(() -> RangeStores.open("etcd://h:99999", Path.of("unused")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'h:99999'");
    }

    @Test
    void create_badStartStepOrTag_isRejected_beforeAnyCall() {
        try (RangeStore store = RangeStores.open("etcd://127.0.0.1:1", Path.of("unused"))) {
            assertThatThrownBy(() -> store.create("order", -1, 10))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("-1");
            assertThatThrownBy(() -> store.create("order", 1, 0))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("step");
            assertThatThrownBy(() -> store.create("a b", 1, 10))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'a b'");
            assertThatThrownBy(() -> store.allocate("order", -1))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("-1");
        }
    }
}

package io.idmint.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idmint.segment.RangeStores;
import io.idmint.spi.RangeStore;
import io.idmint.spi.RegistryException;
import io.idmint.spi.RegistryException.Kind;
import java.net.ServerSocket;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class RedisRangeStoreProviderTest {

    @Test
    void open_findsTheStoreByScheme_andConnectsOnFirstUse() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort(); // free now, so nothing answers there
        }
        for (String scheme : new String[] {"redis", "rediss"}) {
            try (RangeStore store = RangeStores.open(scheme + "://127.0.0.1:" + port
                    + "/x?timeout=300ms", Path.of("unused"))) {
                assertThat(store).isInstanceOf(RedisRangeStore.class);
                long start = System.nanoTime();
                assertThatThrownBy(() -> store.allocate("order", 1))
                        .isInstanceOf(RegistryException.class)
                        .hasMessageContaining(scheme + "://127.0.0.1:" + port)
                        .extracting(e -> ((RegistryException) e).kind())
                        .isEqualTo(Kind.UNAVAILABLE);
                assertThat((System.nanoTime() - start) / 1_000_000).isLessThan(10_000);
            }
        }
    }

    @Test
    void open_badUri_isIllegalArgument_namingTheBadPart() {
        assertThatThrownBy(() -> RangeStores.open("redis://h:1/x?color=red", Path.of("unused")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'color'");
        assertThatThrownBy(() -> RangeStores.open("redis://h:1/x?persistence=no",
                Path.of("unused")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("persistence 'no'");
    }

    @Test
    void badArguments_areRejected_beforeAnyCall() {
        try (RangeStore store = RangeStores.open("redis://127.0.0.1:1", Path.of("unused"))) {
            assertThatThrownBy(() -> store.create("order", -1, 10))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("-1");
            assertThatThrownBy(() -> store.create("order", 1, RangeStore.MAX_STEP + 1))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("step");
            assertThatThrownBy(() -> store.create("a/b", 1, 10))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'a/b'");
            assertThatThrownBy(() -> store.allocate("order", -1))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("-1");
        }
    }
}

package io.idmint.server.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idmint.testkit.ManualTimeSource;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** {@link Access}: whom the rate limit counts against, and how big its table may grow. */
class AccessTest {

    private final ManualTimeSource time = new ManualTimeSource(0);

    @Test
    void charge_adminTokenOnlyAndNoToken_countsAgainstTheNetwork() {
        // Was a NullPointerException: the absent token was the table's key.
        RequestPipeline pipeline = pipeline(new Access(null, "admin", 100, time));
        RequestPipeline.Caller anonymous = caller(null, "10.1.2.3");

        pipeline.charge(anonymous, 100);

        assertThatThrownBy(() -> pipeline.charge(caller(null, "10.1.2.99"), 1))
                .isInstanceOf(ApiException.class).hasMessageContaining("100 IDs per second");
    }

    @Test
    void charge_inventedTokens_shareTheirNetworksAllowance() {
        for (Access access : List.of(new Access(null, "admin", 100, time),
                new Access(null, null, 100, time), new Access("api", "admin", 100, time))) {
            RequestPipeline pipeline = pipeline(access);
            pipeline.charge(caller("Bearer made-up-1", "10.1.2.3"), 100);

            assertThatThrownBy(() -> pipeline.charge(caller("Bearer made-up-2", "10.1.2.4"), 1))
                    .isInstanceOf(ApiException.class);
            assertThatThrownBy(() -> pipeline.charge(caller(null, "10.1.2.5"), 1))
                    .isInstanceOf(ApiException.class);
            // Another network has an allowance of its own.
            pipeline.charge(caller("Bearer made-up-3", "10.1.3.3"), 100);
        }
    }

    @Test
    void client_configuredToken_isTheTokenWhateverItsSpellingOrAddress() {
        Access access = new Access("api", "admin", 100, time);

        assertThat(access.client("Bearer api", "10.0.0.1")).isEqualTo("token:api")
                .isEqualTo(access.client("bearer   api ", "192.168.9.9"));
        assertThat(access.client("Bearer admin", "10.0.0.1")).isEqualTo("token:admin");
        assertThat(access.client("Bearer apix", "10.0.0.1")).isEqualTo("net:10.0.0");
        assertThat(access.client("Basic api", "10.0.0.1")).isEqualTo("net:10.0.0");
    }

    @Test
    void network_ipv4Slash24_ipv6Slash64_mappedIpv4AsIpv4() {
        assertThat(Access.network("127.0.0.1")).isEqualTo("net:127.0.0")
                .isEqualTo(Access.network("127.0.0.20"))
                .isEqualTo(Access.network("::ffff:127.0.0.7"));
        assertThat(Access.network("2001:db8:1:2:3:4:5:6")).isEqualTo("net:20010db800010002")
                .isEqualTo(Access.network("2001:db8:1:2::ffff"))
                .isNotEqualTo(Access.network("2001:db8:1:3::1"));
        assertThat(Access.network("0:0:0:0:0:0:0:1")).isEqualTo(Access.network("::2"));
        // Never a name lookup: what is not an address literal is one unknown network.
        assertThat(Access.network("example.invalid")).isEqualTo("net:unknown")
                .isEqualTo(Access.network(null));
    }

    @Test
    void take_tableFull_newClientsShareOneAllowance_countedAndBounded() {
        AtomicLong shared = new AtomicLong();
        Access access = new Access(null, null, 100, time, shared::incrementAndGet);
        for (int i = 0; i < Access.MAX_CLIENTS; i++) {
            assertThat(access.take("client-" + i, 1)).isZero();
        }
        assertThat(shared).hasValue(0);

        // Past the cap, within a second of the last sweep: no scan, the shared allowance.
        for (int i = 0; i < 100; i++) {
            assertThat(access.take("new-" + i, 1)).isZero();
        }
        assertThat(access.take("new-100", 1)).as("the shared allowance is used up").isPositive();
        assertThat(shared).hasValue(101);
        assertThat(access.clients()).isEqualTo(Access.MAX_CLIENTS);

        // A second later the idle clients are swept, and a new one gets its own again.
        time.advance(Duration.ofMillis(1001));
        assertThat(access.take("later", 100)).isZero();
        assertThat(access.clients()).isEqualTo(1);
        assertThat(shared).hasValue(101);
    }

    private static RequestPipeline pipeline(Access access) {
        return new RequestPipeline(access, null, new InternalErrors(io.idmint.TimeSource.system()));
    }

    private static RequestPipeline.Caller caller(String authorization, String address) {
        return new RequestPipeline.Caller(authorization, address, authorization == null ? 0 : 1);
    }
}

package io.idmint.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ConnectionLimitsTest {

    private final List<String> warnings = new ArrayList<>();

    @Test
    void fit_roomForBoth_keepsThemAndSaysNothing() {
        assertThat(ConnectionLimits.fit(4096, 4096, 20_000, warnings::add))
                .containsExactly(4096, 4096);
        assertThat(ConnectionLimits.fit(4096, 4096, -1, warnings::add))
                .containsExactly(4096, 4096);
        assertThat(warnings).isEmpty();
    }

    @Test
    void fit_fewerFiles_lowersBothInProportionKeepingTheReserve_andWarns() {
        int[] fitted = ConnectionLimits.fit(6000, 2000, 5024, warnings::add);

        assertThat(fitted).containsExactly(3000, 1000);
        assertThat(fitted[0] + fitted[1] + ConnectionLimits.RESERVED_FILES).isLessThanOrEqualTo(
                5024);
        assertThat(warnings).singleElement().asString().contains("may open 5024 files",
                "serving at most 3000 HTTP and 1000 gRPC connections", "ulimit -n");
    }

    @Test
    void fit_almostNoFiles_leavesAFewEach() {
        assertThat(ConnectionLimits.fit(4096, 4096, 1024, warnings::add))
                .containsExactly(16, 16);
    }
}

package io.idmint.server.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idmint.server.api.ApiException;
import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.Test;

class QueryTest {

    @Test
    void param_absentOrEmptyQuery_isNull() {
        assertThat(Query.param(null, "count")).isNull();
        assertThat(Query.param("", "count")).isNull();
        assertThat(Query.param("&&", "count")).isNull();
    }

    @Test
    void param_present_isItsValue() {
        assertThat(Query.param("count=5", "count")).isEqualTo("5");
        assertThat(Query.param("&count=5&", "count")).isEqualTo("5");
        assertThat(Query.param("count=", "count")).isEmpty();
        assertThat(Query.param("count", "count")).isEmpty();
        assertThat(Query.param("count=1=2", "count")).isEqualTo("1=2");
    }

    @Test
    void param_onTheHotPath_allocatesNothingButTheValue() {
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        int calls = 10_000;
        long before = threads.getCurrentThreadAllocatedBytes();
        int length = 0;
        for (int i = 0; i < calls; i++) {
            length += Query.param("count=", "count").length();
        }
        long empty = threads.getCurrentThreadAllocatedBytes() - before;
        before = threads.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < calls; i++) {
            length += Query.param("count=500", "count").length();
        }
        long valued = threads.getCurrentThreadAllocatedBytes() - before;

        assertThat(length).isEqualTo(3 * calls);
        assertThat(empty).as("bytes for %s calls returning no new value", calls)
                .isLessThan(calls);
        // The value "500" itself: a String and its bytes, under 64 bytes.
        assertThat(valued).as("bytes for %s calls returning '500'", calls)
                .isLessThan(64L * calls);
    }

    @Test
    void param_percentEncoded_isDecoded() {
        assertThat(Query.param("c%6Funt=%31%30", "count")).isEqualTo("10");
        assertThat(Query.param("id=0x%41b", "id")).isEqualTo("0xAb");
    }

    @Test
    void decodePath_keepsPlus() {
        assertThat(Query.decodePath("1+2")).isEqualTo("1+2");
        assertThat(Query.decodePath("1+%32")).isEqualTo("1+2");
        assertThat(Query.decode("1+2")).isEqualTo("1 2");
    }

    @Test
    void param_unknown_namesIt() {
        assertThatThrownBy(() -> Query.param("count=1&cnt=2", "count"))
                .isInstanceOf(ApiException.class)
                .hasMessage("unknown query parameter 'cnt'; this endpoint takes only count");
        assertThatThrownBy(() -> Query.param("=1", "count"))
                .hasMessageContaining("unknown query parameter ''");
    }

    @Test
    void param_repeated_isAnError() {
        assertThatThrownBy(() -> Query.param("count=1&count=1", "count"))
                .hasMessage("query parameter count is given more than once");
    }

    @Test
    void param_badEncoding_namesIt() {
        assertThatThrownBy(() -> Query.param("count=%g1", "count"))
                .hasMessage("bad percent-encoding in '%g1'");
    }

    @Test
    void none_acceptsNothingElse() {
        Query.none(null);
        Query.none("");
        Query.none("&");
        assertThatThrownBy(() -> Query.none("&x=1&y=2"))
                .hasMessage("unknown query parameter 'x'; this endpoint takes no parameters");
        assertThatThrownBy(() -> Query.none("flag")).hasMessageContaining("'flag'");
    }
}

package io.idmint.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The load generator frames responses itself (no HTTP library, no object per request): a
 * response counts once, when its last byte is in, however the reads split it, or every latency
 * it reports is wrong.
 */
class FixedRateLoadTest {

    private static final String OK = "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n"
            + "content-length: 27\r\n\r\n{\"id\":\"123456789012345678\"}";

    /**
     * Feeds {@code text} cut at {@code cuts}, each piece as a channel read would (no more than
     * the buffer has room for, then {@code complete()}); the status after each piece. Every
     * read but the last of a piece must leave the response incomplete.
     */
    private static int[] feed(FixedRateLoad.Conn c, String text, int... cuts) {
        byte[] bytes = text.getBytes(StandardCharsets.US_ASCII);
        int[] statuses = new int[cuts.length + 1];
        int from = 0;
        for (int i = 0; i <= cuts.length; i++) {
            int to = i < cuts.length ? cuts[i] : bytes.length;
            do {
                int n = Math.min(to - from, c.in.remaining());
                c.in.put(bytes, from, n);
                from += n;
                statuses[i] = c.complete();
                assertThat(statuses[i] == 0 || from == to).as("complete before its end").isTrue();
            } while (from < to);
        }
        return statuses;
    }

    @Test
    void aWholeResponse_isComplete_withItsStatus() {
        FixedRateLoad.Conn c = new FixedRateLoad.Conn(null, null);
        assertThat(feed(c, OK)).containsExactly(200);
        assertThat(feed(c, OK.replace("200 OK", "503 Service Unavailable"))).containsExactly(503);
    }

    @Test
    void everySplit_completesOnce_atTheLastByte() {
        for (int cut = 1; cut < OK.length(); cut++) {
            FixedRateLoad.Conn c = new FixedRateLoad.Conn(null, null);
            assertThat(feed(c, OK, cut)).as("cut at %d", cut).containsExactly(0, 200);
        }
        Random random = new Random(18);
        FixedRateLoad.Conn c = new FixedRateLoad.Conn(null, null);
        for (int n = 0; n < 1_000; n++) {
            int a = 1 + random.nextInt(OK.length() - 2);
            int b = a + 1 + random.nextInt(OK.length() - a - 1);
            assertThat(feed(c, OK, a, b)).as("cuts %d, %d", a, b).containsExactly(0, 0, 200);
        }
    }

    @Test
    void headerNamesInAnyCase_andResponsesLargerThanTheBuffer() {
        String body = "x".repeat(100_000);
        String big = "HTTP/1.1 200 OK\r\nContent-Length: " + body.length() + "\r\nX-Pad: "
                + "p".repeat(20_000) + "\r\n\r\n" + body;
        FixedRateLoad.Conn c = new FixedRateLoad.Conn(null, null);
        assertThat(feed(c, big, 10_000, 30_000, 60_000)).containsExactly(0, 0, 0, 200);
        assertThat(feed(c, OK, 50)).containsExactly(0, 200);
    }

    @Test
    void bytesBeyondTheResponse_orNoLength_areErrors() {
        FixedRateLoad.Conn extra = new FixedRateLoad.Conn(null, null);
        assertThatThrownBy(() -> feed(extra, OK + "HTTP/1.1"))
                .hasMessageContaining("8 bytes nobody asked for");
        FixedRateLoad.Conn noLength = new FixedRateLoad.Conn(null, null);
        assertThatThrownBy(() -> feed(noLength, "HTTP/1.1 200 OK\r\nX: y\r\n\r\n"))
                .hasMessageContaining("response without content-length");
    }
}

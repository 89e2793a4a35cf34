package io.idmint.server.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.idmint.IdCodec;
import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class IdWriterTest {

    @Test
    void write_matchesIdCodecFormat() {
        SplittableRandom random = new SplittableRandom(42);
        long[] values = new long[2000];
        values[0] = 0;
        values[1] = Long.MAX_VALUE;
        values[2] = 9;
        values[3] = 10;
        values[4] = 999_999_999_999_999_999L;
        values[5] = 1_000_000_000_000_000_000L;
        for (int i = 6; i < values.length; i++) {
            // Spread over every magnitude, so each digit count is covered.
            values[i] = random.nextLong(Long.MAX_VALUE) >>> random.nextInt(63);
        }
        for (IdCodec codec : IdCodec.values()) {
            IdWriter writer = IdWriter.of(codec);
            byte[] buf = new byte[writer.maxLineLength()];
            for (long v : values) {
                int len = writer.write(v, buf, 0);
                assertThat(new String(buf, 0, len, StandardCharsets.US_ASCII))
                        .as("%s %d", codec, v)
                        .isEqualTo((codec == IdCodec.HEX ? "0x" : "") + codec.format(v) + "\n");
            }
        }
    }
}

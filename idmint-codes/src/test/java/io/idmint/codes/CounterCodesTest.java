package io.idmint.codes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Codes over a counter's smaller domain ({@link Codes#bits(int)}): shorter, fixed length, the
 * same check symbol and key versions, a permutation of the domain, refusing what is past it.
 */
class CounterCodesTest {

    private static final byte[] KEY = CodeCodecTest.KEY_1;

    private static CodeCodec codec(int bits, String tag) {
        return Codes.newBuilder().key(1, KEY).bits(bits)
                .tweak(tag.getBytes(StandardCharsets.UTF_8)).build();
    }

    @Test
    void everyWidth_roundTrips_atItsFixedLength() {
        SplittableRandom rnd = new SplittableRandom(3);
        for (int bits = 20; bits <= 63; bits++) {
            CodeCodec c = codec(bits, "order");
            assertThat(c.bits()).isEqualTo(bits);
            assertThat(c.length()).isEqualTo(2 + (bits + 4) / 5);
            long max = bits == 63 ? Long.MAX_VALUE : (1L << bits) - 1;
            for (long v : new long[] {0, 1, 2, max - 1, max}) {
                String code = c.encode(v);
                assertThat(code).hasSize(c.length());
                assertThat(c.decode(code)).as("%d bits, %d", bits, v).isEqualTo(v);
            }
            for (int i = 0; i < 200; i++) {
                long v = bits == 63 ? rnd.nextLong() >>> 1 : rnd.nextLong(1L << bits);
                assertThat(c.decode(c.encodeGrouped(v))).isEqualTo(v);
            }
        }
        assertThat(codec(30, "order").encode(42)).hasSize(8);
        assertThat(codec(30, "order").encodeGrouped(42)).matches("1.{4}-.{3}");
    }

    @Test
    void twentyBits_aPermutationOfTheDomain_onASample() {
        CodeCodec c = codec(20, "ticket");
        Set<String> codes = new HashSet<>();
        for (long v = 0; v < 200_000; v++) {
            assertThat(codes.add(c.encode(v))).as("value %d", v).isTrue();
        }
        assertThat(codes).allMatch(code -> code.length() == 6);
    }

    @Test
    void tweaks_giveTwoTagsDifferentCodes_keyVersionsRotate() {
        assertThat(codec(30, "order").encode(42)).isNotEqualTo(codec(30, "invoice").encode(42));
        CodeCodec old = codec(30, "order");
        CodeCodec rotated = Codes.newBuilder().key(1, KEY).key(2, CodeCodecTest.KEY_2)
                .currentVersion(2).bits(30).tweak("order".getBytes(StandardCharsets.UTF_8))
                .build();
        String before = old.encode(42);
        assertThat(rotated.decode(before)).isEqualTo(42);
        assertThat(rotated.keyVersion(rotated.encode(42))).isEqualTo(2);
        assertThat(rotated.encode(42)).startsWith("2");
    }

    @Test
    void badInput_isRefusedNamingIt() {
        CodeCodec c = codec(30, "order");
        assertThatThrownBy(() -> c.encode(1L << 30))
                .hasMessage("value 1073741824 is past this codec's domain, 0 to 2^30-1 "
                        + "(1073741823): build a codec of more bits for it");
        assertThatThrownBy(() -> c.decode(codec(63, "order").encode(42)))
                .hasMessageContaining("has 15 symbols; a code has 8");
        String code = c.encode(42);
        String wrong = code.substring(0, 3) + (code.charAt(3) == 'A' ? 'B' : 'A')
                + code.substring(4);
        assertThatThrownBy(() -> c.decode(wrong)).hasMessageContaining("fails its check symbol");
        assertThatThrownBy(() -> Codes.newBuilder().key(1, KEY).bits(19))
                .hasMessage("bits must be 20 to 63 (FF1 wants a domain of at least a million "
                        + "values), got 19");
        // 32 bits in 7 symbols: the first holds 2 bits, 0-3; a code of the same length whose
        // first symbol is higher passes its check but stands for no 32-bit value.
        String big = CodeText.format(35, 1, 1L << 34, false);
        assertThatThrownBy(() -> codec(32, "order").decode(big))
                .hasMessageContaining("is out of range: its second symbol must be 0-3 (the value "
                        + "has 32 bits), got 'G'");
    }
}

package io.idmint.codes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The text layer alone: base32 layout and the GF(2⁵) check symbol's algebra. */
class CodeTextTest {

    @Test
    void alpha_hasOrder31_soEveryPositionHasItsOwnWeight() {
        int power = 1;
        for (int k = 1; k <= 31; k++) {
            power = CodeText.timesAlpha(power);
            if (k < 31) {
                assertThat(power).as("alpha^%d", k).isNotEqualTo(1);
            }
        }
        assertThat(power).as("alpha^31").isEqualTo(1);
    }

    @Test
    void timesAlpha_isABijectionOnTheField() {
        boolean[] seen = new boolean[32];
        for (int v = 0; v < 32; v++) {
            int w = CodeText.timesAlpha(v);
            assertThat(w).isBetween(0, 31);
            assertThat(seen[w]).isFalse();
            seen[w] = true;
        }
    }

    @Test
    void format_layout_versionThenValueThenCheck() {
        String code = CodeText.format(31, Long.MAX_VALUE, false);

        assertThat(code).hasSize(15).startsWith("Z7ZZZZZZZZZZZZ");
        assertThat(CodeText.format(0, 0, false)).startsWith("00000000000000");
        assertThat(CodeText.format(0, 0, false)).isEqualTo("000000000000000");
        assertThat(CodeText.format(1, 33, true)).matches("10000-00000-0011.");
    }

    @Test
    void parse_readsWhatFormatWrites() {
        for (long v : new long[] {0, 1, 31, 32, 1L << 62, Long.MAX_VALUE}) {
            for (int version : new int[] {0, 7, 31}) {
                CodeText.Parsed p = CodeText.parse(CodeText.format(version, v, true));
                assertThat(p).isEqualTo(new CodeText.Parsed(version, v));
            }
        }
    }

    @Test
    void parse_validCheckButValueOver63Bits_isOutOfRange() {
        // A crafted code: value symbol 'Z' first, with its check symbol computed to match.
        String body = "1Z" + "0".repeat(12);
        int sum = 0;
        for (char c : body.toCharArray()) {
            sum = CodeText.timesAlpha(sum) ^ CodeText.ALPHABET.indexOf(c);
        }
        String code = body + CodeText.ALPHABET.charAt(CodeText.timesAlpha(sum));

        assertThatThrownBy(() -> CodeText.parse(code))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("code '" + code + "' is out of range: its second symbol must be 0-7 "
                        + "(the value has 63 bits), got 'Z'");
    }
}

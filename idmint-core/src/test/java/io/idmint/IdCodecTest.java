package io.idmint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class IdCodecTest {

    @Test
    void parseAny_readsATypedId_whateverItsPrefix() {
        long id = 178294819283726336L;
        assertThat(IdCodec.parseAny(new TypedId("ord", id).toString())).isEqualTo(id);
        assertThat(IdCodec.parseAny(new TypedId("inv_line", id).toString(), Layout.SNOWFLAKE))
                .isEqualTo(id);
        assertThatThrownBy(() -> IdCodec.parseAny("ord_1")).hasMessageContaining("1 symbols");
    }

    @Test
    void knownValues() {
        long id = 178294819283726336L;
        assertThat(IdCodec.DECIMAL.format(id)).isEqualTo("178294819283726336");
        assertThat(IdCodec.HEX.format(id)).isEqualTo("02796e3188b2f000");
        assertThat(IdCodec.HEX.format(1)).isEqualTo("0000000000000001");
        assertThat(IdCodec.BASE32.format(0)).isEqualTo("0000000000000");
        assertThat(IdCodec.BASE32.format(31)).isEqualTo("000000000000Z");
        assertThat(IdCodec.BASE32.format(Long.MAX_VALUE)).isEqualTo("7ZZZZZZZZZZZZ");
    }

    @Test
    void base32_isLenientOnInputAndCanonicalOnOutput() {
        long id = IdCodec.BASE32.parse("7zzzzzzzzzzzz");
        assertThat(id).isEqualTo(Long.MAX_VALUE);
        assertThat(IdCodec.BASE32.parse("0000000000O1L"))
                .isEqualTo(IdCodec.BASE32.parse("0000000000011"));
        assertThat(IdCodec.BASE32.parse("000000000000i")).isEqualTo(1);
    }

    @Test
    void badInput_isRejectedNamingIt() {
        assertThatThrownBy(() -> IdCodec.BASE32.parse("000000000000U"))
                .hasMessageContaining("'U' at position 13");
        assertThatThrownBy(() -> IdCodec.BASE32.parse("8000000000000"))
                .hasMessageContaining("overflows");
        assertThatThrownBy(() -> IdCodec.BASE32.parse("G000000000000"))
                .hasMessageContaining("overflows");
        assertThatThrownBy(() -> IdCodec.BASE32.parse("000")).hasMessageContaining("expected 13");
        assertThatThrownBy(() -> IdCodec.DECIMAL.parse("9223372036854775808"))
                .hasMessageContaining("larger");
        assertThatThrownBy(() -> IdCodec.DECIMAL.parse("-1")).hasMessageContaining("'-1'");
        assertThatThrownBy(() -> IdCodec.DECIMAL.parse("12a")).hasMessageContaining("'12a'");
        assertThatThrownBy(() -> IdCodec.DECIMAL.parse("+12")).hasMessageContaining("'+12'");
        assertThatThrownBy(() -> IdCodec.DECIMAL.parse("")).hasMessageContaining("empty");
        assertThatThrownBy(() -> IdCodec.HEX.parse("0x8000000000000000"))
                .hasMessageContaining("above");
        assertThatThrownBy(() -> IdCodec.HEX.parse("0x")).hasMessageContaining("hex digits");
        assertThatThrownBy(() -> IdCodec.HEX.parse("0x12345678901234567"))
                .hasMessageContaining("1 to 16");
        assertThatThrownBy(() -> IdCodec.HEX.parse("0xzz")).hasMessageContaining("'0xzz'");
        assertThatThrownBy(() -> IdCodec.parseAny("hello"))
                .hasMessageContaining("'hello' is not an ID");
        assertThatThrownBy(() -> IdCodec.DECIMAL.format(-1)).hasMessageContaining("negative");
        assertThatThrownBy(() -> IdCodec.named("octal")).hasMessageContaining("'octal'");
    }

    /** Property: every positive long round-trips through every codec, and parseAny reads them. */
    @Test
    void randomIds_roundTripEveryCodec() {
        Random rnd = new Random(42);
        for (int i = 0; i < 200_000; i++) {
            long id = rnd.nextLong() >>> (1 + rnd.nextInt(63));
            for (IdCodec c : IdCodec.values()) {
                String text = c.format(id);
                assertThat(c.parse(text)).isEqualTo(id);
                assertThat(c.parse(text.toLowerCase())).isEqualTo(id);
            }
            assertThat(IdCodec.BASE32.format(id)).hasSize(13);
            assertThat(IdCodec.HEX.format(id)).hasSize(16);
            assertThat(IdCodec.parseAny("0x" + IdCodec.HEX.format(id))).isEqualTo(id);
            assertReadsBackOrNamesBoth(IdCodec.DECIMAL.format(id), id);
        }
    }

    /** The API's own value_hex (16 hex digits, no 0x) reads back, unless it is all digits. */
    @Test
    void parseAny_bareSixteenHexDigits_readsAsHex() {
        assertThat(IdCodec.parseAny("01a569d8c6800000")).isEqualTo(0x01a569d8c6800000L);
        assertThat(IdCodec.parseAny("01A569D8C6800000")).isEqualTo(0x01a569d8c6800000L);
        assertThat(IdCodec.parseAny("9000000000000000")).isEqualTo(9000000000000000L);
        assertThatThrownBy(() -> IdCodec.parseAny("01a569d8c680000"))
                .hasMessage("'01a569d8c680000' is not an ID: expected decimal digits, 16 hex "
                        + "digits (optionally after 0x) or 13 Crockford base32 symbols");
        Random rnd = new Random(16);
        for (int i = 0; i < 20_000; i++) {
            long id = rnd.nextLong() >>> (1 + rnd.nextInt(63));
            String hex = IdCodec.HEX.format(id);
            if (hex.chars().allMatch(Character::isDigit)) {
                assertThatThrownBy(() -> IdCodec.parseAny(hex)).hasMessageContaining("ambiguous");
            } else {
                assertThat(IdCodec.parseAny(hex)).isEqualTo(id);
            }
        }
    }

    @Test
    void parseAny_sixteenDigitsValidAsDecimalAndHex_namesBothReadings() {
        assertThatThrownBy(() -> IdCodec.parseAny("1000000000000000"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("'1000000000000000' is ambiguous: it reads as decimal ID "
                        + "1000000000000000 and as hex ID 1152921504606846976; give its format "
                        + "(decimal or hex) to choose");
        assertThat(IdCodec.HEX.parse("1000000000000000")).isEqualTo(1L << 60);
        assertThat(IdCodec.DECIMAL.parse("1000000000000000")).isEqualTo(1000000000000000L);
    }

    @Test
    void parseAny_readingsTooLargeForTheLayout_doNotCount() {
        Layout jsSafe = Layout.parse("js-safe");
        assertThat(IdCodec.parseAny("1000000000000000", jsSafe)).isEqualTo(1000000000000000L);
        assertThat(IdCodec.parseAny("01a569d8c6800000", jsSafe)).isEqualTo(0x01a569d8c6800000L);
        Random rnd = new Random(53);
        for (int i = 0; i < 20_000; i++) {
            long id = rnd.nextLong() >>> 11;
            assertThat(IdCodec.parseAny(IdCodec.DECIMAL.format(id), jsSafe)).isEqualTo(id);
        }
    }

    @Test
    void parseAny_allDigitBase32_isAmbiguousNeverDecimal() {
        assertThatThrownBy(() -> IdCodec.parseAny("0400000000005"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("'0400000000005' is ambiguous: it reads as decimal ID 400000000005 and "
                        + "as base32 ID 144115188075855877; give its format (decimal or base32) "
                        + "to choose");
        assertThat(IdCodec.BASE32.parse("0400000000005")).isEqualTo(144115188075855877L);
        assertThat(IdCodec.parseAny("8400000000005")).isEqualTo(8400000000005L);
        assertThat(IdCodec.parseAny("0XNGDK55MCW27"))
                .isEqualTo(IdCodec.BASE32.parse("0XNGDK55MCW27"));
        assertThatThrownBy(() -> IdCodec.parseAny("0x12345678901"))
                .hasMessageContaining("as hex ID 1250999896321 and as base32 ID ");
    }

    /**
     * Property: in a forced format every ID round-trips, base32 made only of digits included;
     * without one, the text reads back or is refused naming this ID as one reading.
     */
    @Test
    void everyFormat_roundTripsForcedAndNeverMisreadsUnforced() {
        Random rnd = new Random(1_150_000);
        List<Long> ids = new ArrayList<>(List.of(0L, 1L, 9L, 10L, Long.MAX_VALUE,
                IdCodec.BASE32.parse("7999999999999"), IdCodec.BASE32.parse("0000000000000"),
                IdCodec.BASE32.parse("1000000000000"), IdCodec.HEX.parse("7999999999999999")));
        for (int i = 0; i < 5_000; i++) {
            StringBuilder digits = new StringBuilder().append(rnd.nextInt(8));
            for (int k = 1; k < 13; k++) {
                digits.append(rnd.nextInt(10));
            }
            ids.add(IdCodec.BASE32.parse(digits.toString()));
            ids.add(rnd.nextLong() >>> (1 + rnd.nextInt(63)));
        }
        for (long id : ids) {
            for (IdCodec c : IdCodec.values()) {
                String text = c.format(id);
                assertThat(c.parse(text)).as("%s %s", c, text).isEqualTo(id);
                assertReadsBackOrNamesBoth(text, id);
            }
        }
    }

    /** parseAny gives {@code id} back, or refuses the text naming {@code id} as one reading. */
    static void assertReadsBackOrNamesBoth(String text, long id) {
        try {
            assertThat(IdCodec.parseAny(text)).isEqualTo(id);
        } catch (IllegalArgumentException e) {
            assertThat(e.getMessage()).startsWith("'" + text + "' is ambiguous: it reads ")
                    .containsPattern(" ID " + id + "[ ;]");
        }
    }

    /** Property: order is kept by the fixed-length forms, so they sort like the IDs. */
    @Test
    void fixedLengthForms_sortLikeTheIds() {
        Random rnd = new Random(7);
        for (int i = 0; i < 100_000; i++) {
            long a = rnd.nextLong() >>> 1;
            long b = rnd.nextLong() >>> 1;
            assertThat(Integer.signum(IdCodec.BASE32.format(a).compareTo(IdCodec.BASE32.format(b))))
                    .isEqualTo(Long.signum(Long.compare(a, b)));
            assertThat(Integer.signum(IdCodec.HEX.format(a).compareTo(IdCodec.HEX.format(b))))
                    .isEqualTo(Long.signum(Long.compare(a, b)));
        }
    }

    /** Property: random garbage never parses to a wrong value silently: it parses or it throws. */
    @Test
    void randomGarbage_eitherThrowsOrRoundTrips() {
        Random rnd = new Random(99);
        String alphabet = "0123456789abcdefxXILOU-+ zZ";
        for (int i = 0; i < 100_000; i++) {
            StringBuilder sb = new StringBuilder();
            int len = rnd.nextInt(20);
            for (int k = 0; k < len; k++) {
                sb.append(alphabet.charAt(rnd.nextInt(alphabet.length())));
            }
            try {
                long id = IdCodec.parseAny(sb.toString());
                assertThat(id).isNotNegative();
            } catch (IllegalArgumentException expected) {
                assertThat(expected.getMessage()).contains("'" + sb + "'");
            }
        }
    }

    @Test
    void parse_unsignedLayout_acceptsTheWhole64BitRange() {
        Layout discord = Layout.DISCORD;
        assertThat(IdCodec.parseAny("18446744073709551615", discord)).isEqualTo(-1L);
        assertThat(IdCodec.DECIMAL.parse("9223372036854775808", discord))
                .isEqualTo(Long.MIN_VALUE);
        assertThat(IdCodec.parseAny("0xffffffffffffffff", discord)).isEqualTo(-1L);
        assertThat(IdCodec.BASE32.parse("FZZZZZZZZZZZZ", discord)).isEqualTo(-1L);
        assertThatThrownBy(() -> IdCodec.parseAny("18446744073709551616", discord))
                .hasMessageContaining("larger than the largest ID, 18446744073709551615");
        assertThatThrownBy(() -> IdCodec.BASE32.parse("GZZZZZZZZZZZZ", discord))
                .hasMessageContaining("0-F");
        // A 63-bit layout keeps refusing the sign bit.
        assertThatThrownBy(() -> IdCodec.parseAny("18446744073709551615", Layout.LEAF))
                .hasMessageContaining("expected 1 to 19 digits");
        assertThatThrownBy(() -> IdCodec.HEX.parse("0x8000000000000000", Layout.LEAF))
                .hasMessageContaining("above");
    }
}

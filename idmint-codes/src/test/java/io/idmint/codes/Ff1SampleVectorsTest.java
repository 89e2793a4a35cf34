package io.idmint.codes;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HexFormat;
import java.util.stream.Stream;
import org.bouncycastle.crypto.fpe.FPEFF1Engine;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The FF1 samples NIST published for SP 800-38G ("FF1samples.pdf", samples 1 to 9: AES-128,
 * AES-192 and AES-256, radix 10 and 36), through {@link Ff1#engine}, the factory codes use: proof
 * that Bouncy Castle's FF1 and AES are wired the way the standard means. (Codes take AES-128 and
 * AES-256 keys; the AES-192 samples are run too, as they test the same engine.)
 */
class Ff1SampleVectorsTest {

    private static final String K128 = "2B7E151628AED2A6ABF7158809CF4F3C";
    private static final String K192 = K128 + "EF4359D8D580AA4F";
    private static final String K256 = K192 + "7F036D6F04FC6A94";
    private static final String T10 = "39383736353433323130";
    private static final String T36 = "3737373770717273373737";

    static Stream<Arguments> samples() {
        return Stream.of(
                Arguments.of(1, K128, 10, "", "0123456789", "2433477484"),
                Arguments.of(2, K128, 10, T10, "0123456789", "6124200773"),
                Arguments.of(3, K128, 36, T36, "0123456789abcdefghi", "a9tv40mll9kdu509eum"),
                Arguments.of(4, K192, 10, "", "0123456789", "2830668132"),
                Arguments.of(5, K192, 10, T10, "0123456789", "2496655549"),
                Arguments.of(6, K192, 36, T36, "0123456789abcdefghi", "xbj3kv35jrawxv32ysr"),
                Arguments.of(7, K256, 10, "", "0123456789", "6657667009"),
                Arguments.of(8, K256, 10, T10, "0123456789", "1001623463"),
                Arguments.of(9, K256, 36, T36, "0123456789abcdefghi", "xs8a0azh2avyalyzuwd"));
    }

    @ParameterizedTest(name = "sample #{0}")
    @MethodSource("samples")
    void nistSample_encryptsAndDecrypts(int sample, String key, int radix, String tweak,
            String plain, String cipher) {
        byte[] k = HexFormat.of().parseHex(key);
        byte[] t = HexFormat.of().parseHex(tweak);

        FPEFF1Engine encrypt = Ff1.engine(true, k, radix, t);
        FPEFF1Engine decrypt = Ff1.engine(false, k, radix, t);

        assertThat(text(run(encrypt, digits(plain)))).isEqualTo(cipher);
        assertThat(text(run(decrypt, digits(cipher)))).isEqualTo(plain);
    }

    private static byte[] run(FPEFF1Engine engine, byte[] in) {
        byte[] out = new byte[in.length];
        engine.processBlock(in, 0, in.length, out, 0);
        return out;
    }

    /** NIST writes radix-36 numerals with 0-9 then a-z. */
    private static byte[] digits(String numeral) {
        byte[] d = new byte[numeral.length()];
        for (int i = 0; i < d.length; i++) {
            d[i] = (byte) Character.digit(numeral.charAt(i), 36);
        }
        return d;
    }

    private static String text(byte[] digits) {
        StringBuilder s = new StringBuilder();
        for (byte d : digits) {
            s.append(Character.forDigit(d, 36));
        }
        return s.toString();
    }
}

package io.idmint.codes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

class CodeCodecTest {

    static final byte[] KEY_1 = Keys.fromHex("2B7E151628AED2A6ABF7158809CF4F3C");
    static final byte[] KEY_2 = Keys.fromHex(
            "2B7E151628AED2A6ABF7158809CF4F3CEF4359D8D580AA4F7F036D6F04FC6A94");
    static final CodeCodec CODES = Codes.newBuilder().key(1, KEY_1).build();

    private static final ExecutorService POOL = Executors.newFixedThreadPool(
            Math.max(2, Runtime.getRuntime().availableProcessors()));

    @AfterAll
    static void stopPool() {
        POOL.shutdownNow();
    }

    @Test
    void encode_isFifteenSymbolsWithVersionFirst() {
        String code = CODES.encode(42);

        assertThat(code).matches("1[0-7][0-9A-HJKMNP-TV-Z]{13}");
        assertThat(CODES.encodeGrouped(42)).isEqualTo(code.substring(0, 5) + "-"
                + code.substring(5, 10) + "-" + code.substring(10));
        assertThat(CODES.currentVersion()).isEqualTo(1);
        assertThat(CODES.keyVersion(code)).isEqualTo(1);
    }

    /**
     * Pins the format: these codes must never change for this key, or stored codes stop decoding.
     * (A regression pin computed by this codec, not a NIST vector.)
     */
    @Test
    void encode_pinnedCodes_neverChange() {
        assertThat(CODES.encode(0)).isEqualTo("16DK2SGWF676WDG");
        assertThat(CODES.encode(1)).isEqualTo("10TV5WV06VX97ET");
        assertThat(CODES.encodeGrouped(1)).isEqualTo("10TV5-WV06V-X97ET");
        assertThat(CODES.encode(Long.MAX_VALUE)).isEqualTo("13EQNHFHSJNVMPD");
        assertThat(CODES.decode("10tv5-wv06v-x97et")).isEqualTo(1);
    }

    /**
     * A million random IDs (seeded) each decode back to themselves, and give as many distinct
     * codes as there are distinct IDs. Spread over the cores: FF1 costs some microseconds.
     */
    @Test
    void roundTrip_aMillionRandomIds_distinctCodes() throws Exception {
        int tasks = 8;
        int perTask = 125_000;
        long[][] ids = new long[tasks][perTask];
        long[][] values = new long[tasks][perTask];
        List<Callable<Void>> work = new ArrayList<>();
        for (int t = 0; t < tasks; t++) {
            long[] myIds = ids[t];
            long[] myValues = values[t];
            SplittableRandom random = new SplittableRandom(7_000 + t);
            work.add(() -> {
                for (int i = 0; i < perTask; i++) {
                    long id = random.nextLong() & Long.MAX_VALUE;
                    String code = CODES.encode(id);
                    long back = CODES.decode(code);
                    if (back != id) {
                        throw new AssertionError("ID " + id + " -> " + code + " -> " + back);
                    }
                    myIds[i] = id;
                    myValues[i] = CodeText.parse(code).value();
                }
                return null;
            });
        }
        for (Future<Void> f : POOL.invokeAll(work)) {
            f.get();
        }
        assertThat(distinct(values)).isEqualTo(distinct(ids)).isGreaterThan(999_990);
        for (long id : new long[] {0, 1, 2, Long.MAX_VALUE - 1, Long.MAX_VALUE}) {
            assertThat(CODES.decode(CODES.encode(id))).isEqualTo(id);
        }
    }

    @Test
    void encode_denseRangeOfConsecutiveIds_distinctCodes() {
        Set<String> codes = new HashSet<>();
        long base = 1_234_567_890_123L;
        for (long id = base; id < base + 100_000; id++) {
            codes.add(CODES.encode(id));
        }
        assertThat(codes).hasSize(100_000);
    }

    private static int distinct(long[][] batches) {
        long[] all = java.util.Arrays.stream(batches).flatMapToLong(java.util.Arrays::stream)
                .sorted().toArray();
        int n = all.length == 0 ? 0 : 1;
        for (int i = 1; i < all.length; i++) {
            if (all[i] != all[i - 1]) {
                n++;
            }
        }
        return n;
    }

    /**
     * Codes of consecutive IDs share no more than chance predicts: the first value symbol is 0-7
     * (1 in 8 alike by chance), the rest 1 in 32; and the 63 value bits differ in about half.
     */
    @Test
    void encode_consecutiveIds_lookUnrelated() {
        int pairs = 20_000;
        long sharedPrefix = 0;
        long differingBits = 0;
        long base = 1L << 40;
        String previous = CODES.encode(base);
        long prevValue = CodeText.parse(previous).value();
        for (long id = base + 1; id <= base + pairs; id++) {
            String code = CODES.encode(id);
            int k = 1;
            while (k < 14 && code.charAt(k) == previous.charAt(k)) {
                k++;
            }
            sharedPrefix += k - 1;
            long value = CodeText.parse(code).value();
            differingBits += Long.bitCount(value ^ prevValue);
            previous = code;
            prevValue = value;
        }
        // Expected shared value prefix: 1/8 + 1/8 * 1/32 + ... ~ 0.129 symbols.
        assertThat((double) sharedPrefix / pairs).isBetween(0.09, 0.17);
        assertThat((double) differingBits / pairs).isBetween(30.5, 32.5);
    }

    /**
     * Every single-symbol substitution and every transposition (adjacent or not) of 10,000 codes
     * fails the check symbol: the check alone, as {@code decode} runs it first.
     */
    @Test
    void checkSymbol_everySubstitutionAndTransposition_isCaught() {
        long[] counts = mutateAll(10_000, 5, code -> {
            if (CodeText.passesCheck(code)) {
                throw new AssertionError("'" + code + "' passes its check although mistyped");
            }
        });
        assertThat(counts[0]).isEqualTo(10_000L * 15 * 31);
        assertThat(counts[1]).isGreaterThan(10_000L * 95);
    }

    /** The same through {@code decode}, with its message, on fewer codes (exceptions are slow). */
    @Test
    void decode_everySubstitutionAndTransposition_isRejected() {
        long[] counts = mutateAll(150, 6, code -> assertThatThrownBy(() -> CODES.decode(code))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("code '" + code + "' fails its check symbol: a symbol is mistyped or "
                        + "two are swapped"));
        assertThat(counts[0]).isEqualTo(150L * 15 * 31);
    }

    /**
     * Applies {@code check} to every single-symbol substitution and every transposition of two
     * different symbols of {@code n} random codes.
     *
     * @return {substitutions, transpositions}
     */
    private static long[] mutateAll(int n, long seed, Consumer<String> check) {
        SplittableRandom random = new SplittableRandom(seed);
        long substitutions = 0;
        long transpositions = 0;
        for (int k = 0; k < n; k++) {
            char[] code = CODES.encode(random.nextLong() & Long.MAX_VALUE).toCharArray();
            for (int i = 0; i < code.length; i++) {
                char original = code[i];
                for (char s : CodeText.ALPHABET.toCharArray()) {
                    if (s != original) {
                        code[i] = s;
                        check.accept(new String(code));
                        substitutions++;
                    }
                }
                code[i] = original;
                for (int j = i + 1; j < code.length; j++) {
                    if (code[i] != code[j]) {
                        swap(code, i, j);
                        check.accept(new String(code));
                        swap(code, i, j);
                        transpositions++;
                    }
                }
            }
        }
        return new long[] {substitutions, transpositions};
    }

    private static void swap(char[] c, int i, int j) {
        char t = c[i];
        c[i] = c[j];
        c[j] = t;
    }

    @Test
    void decode_isLenient_caseHyphensSpacesAndAliases() {
        long id = 987_654_321L;
        String code = CODES.encode(id);
        String grouped = CODES.encodeGrouped(id);

        assertThat(CODES.decode(grouped)).isEqualTo(id);
        assertThat(CODES.decode(grouped.toLowerCase())).isEqualTo(id);
        assertThat(CODES.decode(" " + code.substring(0, 5) + " " + code.substring(5) + " "))
                .isEqualTo(id);
        String aliased = code.replace('0', 'O').replace('1', 'I');
        assertThat(CODES.decode(aliased)).isEqualTo(id);
        assertThat(CODES.decode(code.replace('1', 'l'))).isEqualTo(id);
    }

    @Test
    void decode_badCodes_rejectedWithExactMessages() {
        String code = CODES.encode(5);

        assertRejected(null, "empty code '': a code has 15 Crockford base32 symbols");
        assertRejected("", "empty code '': a code has 15 Crockford base32 symbols");
        assertRejected("--  -", "code '--  -' has 0 symbols; a code has 15 (hyphens and spaces "
                + "aside)");
        assertRejected(code.substring(1), "code '" + code.substring(1) + "' has 14 symbols; a code "
                + "has 15 (hyphens and spaces aside)");
        assertRejected(code + "0", "code '" + code + "0' has 16 symbols; a code has 15 (hyphens "
                + "and spaces aside)");
        String withU = code.substring(0, 2) + "U" + code.substring(3);
        assertRejected(withU, "code '" + withU + "': 'U' at position 3 is not a Crockford base32 "
                + "symbol (0-9 and A-Z without I L O U; O reads as 0, I and L as 1)");
        assertRejected("1234_", "code '1234_': '_' at position 5 is not a Crockford base32 symbol "
                + "(0-9 and A-Z without I L O U; O reads as 0, I and L as 1)");
        assertRejected("12é", "code '12é': 'é' at position 3 is not a Crockford base32 symbol "
                + "(0-9 and A-Z without I L O U; O reads as 0, I and L as 1)");
        String mistyped = code.substring(0, 14) + (code.charAt(14) == '0' ? '1' : '0');
        assertRejected(mistyped, "code '" + mistyped + "' fails its check symbol: a symbol is "
                + "mistyped or two are swapped");
        String long50 = "0".repeat(50);
        assertRejected(long50, "code '" + "0".repeat(40) + "...' has 50 symbols; a code has 15 "
                + "(hyphens and spaces aside)");
    }

    @Test
    void encode_negativeId_rejected() {
        assertThatThrownBy(() -> CODES.encode(-1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("ID -1 is negative; codes encode IDs from 0 to 2^63-1");
        assertThatThrownBy(() -> CODES.encodeGrouped(Long.MIN_VALUE))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void rotation_oldCodesStillDecode_newOnesUseTheNewKey() {
        String old = CODES.encode(777);
        CodeCodec rotated = Codes.newBuilder().key(1, KEY_1).key(2, KEY_2).currentVersion(2)
                .build();

        String fresh = rotated.encode(777);

        assertThat(rotated.decode(old)).isEqualTo(777);
        assertThat(fresh).startsWith("2").isNotEqualTo(old);
        assertThat(rotated.decode(fresh)).isEqualTo(777);
        assertThat(rotated.keyVersion(old)).isEqualTo(1);
        assertThat(rotated.keyVersion(fresh)).isEqualTo(2);
        assertThatThrownBy(() -> CODES.decode(fresh))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("code '" + fresh + "' was made with key version 2, which this codec "
                        + "does not have (it has 1)");
        assertThat(CODES.keyVersion(fresh)).isEqualTo(2);
    }

    @Test
    void retiredKey_oldCodesRejectedAsUnknownVersion() {
        String old = CODES.encode(9);
        CodeCodec only2 = Codes.newBuilder().key(2, KEY_2).build();

        assertThatThrownBy(() -> only2.decode(old))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("code '" + old + "' was made with key version 1, which this codec does "
                        + "not have (it has 2)");
    }

    @Test
    void tweak_separatesDeploymentsSharingAKey() {
        CodeCodec eu = Codes.newBuilder().key(1, KEY_1)
                .tweak("eu".getBytes(StandardCharsets.UTF_8)).build();
        CodeCodec us = Codes.newBuilder().key(1, KEY_1)
                .tweak("us".getBytes(StandardCharsets.UTF_8)).build();

        assertThat(eu.encode(100)).isNotEqualTo(us.encode(100)).isNotEqualTo(CODES.encode(100));
        assertThat(eu.decode(eu.encode(100))).isEqualTo(100);
        assertThat(us.decode(eu.encode(100))).isNotEqualTo(100);
    }

    @Test
    void sameKeyDifferentCodecs_agree() {
        CodeCodec again = Codes.newBuilder().key(1, KEY_1.clone()).build();

        assertThat(again.encode(123_456)).isEqualTo(CODES.encode(123_456));
    }

    /** Engines are per thread: many threads at once give exactly the single-threaded codes. */
    @Test
    void concurrentUse_matchesSequential() throws Exception {
        int n = 5_000;
        String[] expected = new String[n];
        for (int i = 0; i < n; i++) {
            expected[i] = CODES.encode(i * 1_000_003L);
        }
        List<Callable<Void>> work = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            work.add(() -> {
                for (int i = 0; i < n; i++) {
                    String code = CODES.encode(i * 1_000_003L);
                    if (!code.equals(expected[i]) || CODES.decode(code) != i * 1_000_003L) {
                        throw new AssertionError("thread disagrees at " + i);
                    }
                }
                return null;
            });
        }
        for (Future<Void> f : POOL.invokeAll(work)) {
            f.get();
        }
    }

    /** The class Javadoc example of {@link Codes}, compiled. */
    @Test
    void example_fromCodesJavadoc() {
        long id = 1_234_567_890_123_456L;
        CodeCodec codes = Codes.newBuilder().key(1, Keys.generate()).build();

        String code = codes.encode(id);
        long back = codes.decode(code);

        assertThat(back).isEqualTo(id);
        assertThat(codes.encodeGrouped(id)).matches("1....-.....-.....");
    }

    private static void assertRejected(String code, String message) {
        assertThatThrownBy(() -> CODES.decode(code))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(message);
    }
}

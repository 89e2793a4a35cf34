package io.idmint.codes;

/**
 * Turns IDs into public codes and back. Thread-safe; build one with {@link Codes}.
 *
 * <h2>Format</h2>
 *
 * <pre>
 *   K EEEEEEEEEEEEE C        15 Crockford base32 symbols, shown as KEEEE-EEEEE-EEEEC
 *   | |             |
 *   | |             +-- check symbol: catches every single-symbol error and every
 *   | |                 transposition (see below)
 *   | +---------------- FF1-AES(key K, tweak)(ID): 63 bits in 13 symbols (65 bits), so
 *   |                   the first E is always 0-7
 *   +------------------ key version, 0-31: which key encrypted the ID, so keys can rotate
 * </pre>
 *
 * <p><b>Capacity.</b> FF1 runs over radix 2 with 63 digits (the ID's binary numeral, most
 * significant bit first, so NIST's {@code NUM₂(X)} is the ID itself): a permutation of the
 * 2<sup>63</sup> non-negative {@code long}s. Every ID from 0 to 2<sup>63</sup>-1 has exactly one
 * code per key, and no two IDs share one: codes are as unique as the IDs. 32 key versions.
 *
 * <p><b>Alphabet.</b> Crockford base32: {@code 0-9 A-Z} without {@code I L O U}. Decoding is
 * case-insensitive, reads {@code O} as 0 and {@code I}/{@code L} as 1, and ignores hyphens and
 * spaces anywhere: a code read aloud and typed back in any case, grouped or not, decodes.
 *
 * <p><b>Check symbol.</b> With the 15 symbol values {@code s₀ … s₁₄} taken as elements of
 * GF(2⁵) (polynomial {@code x⁵ + x² + 1}, α = x, which has order 31), a code is valid when
 * {@code Σ sᵢ·α^(14-i) = 0}; the encoder picks {@code s₁₄} to make it so. Each position has a
 * distinct non-zero weight {@code α^(14-i)} in a field, so:
 * <ul>
 *   <li>any single-symbol substitution changes the sum by {@code (s ⊕ s')·αᵏ ≠ 0};
 *   <li>any transposition of two different symbols, adjacent or not, changes it by
 *       {@code (s ⊕ s')·(αⁱ ⊕ αʲ) ≠ 0}, as {@code αⁱ = αʲ} only when 31 divides {@code i - j};
 *   <li>a twin error ({@code aa → bb}) likewise; any other error escapes with probability 1/32.
 * </ul>
 * Crockford's own check symbol (the number mod 37, also prime) catches single substitutions and
 * adjacent transpositions too, but needs five extra symbols {@code * ~ $ = U}, which turn up in
 * 5 of 37 codes and are awkward to read aloud, to put in a URL or to match with a simple
 * pattern; the GF(2⁵) sum keeps every symbol in the base32 alphabet (bech32 checksums over the
 * same field for the same reason).
 *
 * <p><b>What a code hides.</b> Without the key a code says nothing about its ID beyond the key
 * version: codes of consecutive IDs look unrelated, so they reveal neither creation time, nor
 * worker, nor how many were issued. FF1 is a pseudorandom permutation, not authentication: a
 * made-up code with a valid check symbol decodes to <em>some</em> ID; look it up before trusting
 * it.
 */
public interface CodeCodec {

    /** Symbols in a code of an ID (63-bit values, the default), separators aside. */
    int LENGTH = 15;

    /**
     * The bits of the values this codec encodes: 63 for IDs (the default), fewer for a counter
     * built with {@link Codes#bits(int)}.
     */
    default int bits() {
        return 63;
    }

    /** Symbols in this codec's codes, separators aside: 15 for IDs, 2 + ceil(bits / 5). */
    default int length() {
        return LENGTH;
    }

    /**
     * The code of {@code id} under the current key: 15 uppercase symbols, no separators.
     *
     * @throws IllegalArgumentException when {@code id} is negative
     */
    String encode(long id);

    /** {@link #encode(long)} shown in three groups of five: {@code KEEEE-EEEEE-EEEEC}. */
    String encodeGrouped(long id);

    /**
     * The ID this code stands for, decrypted with the key of its version.
     *
     * @throws IllegalArgumentException naming the code and the problem: an illegal symbol, the
     *     wrong number of symbols, a failed check symbol, a value over 63 bits, or a key version
     *     this codec does not have
     */
    long decode(String code);

    /**
     * The key version a code was made with, after checking its symbols and check symbol; the
     * version need not be one this codec has (to spot codes from retired keys).
     *
     * @throws IllegalArgumentException as {@link #decode(String)}, except for an unknown version
     */
    int keyVersion(String code);

    /** The key version {@link #encode(long)} uses. */
    int currentVersion();
}

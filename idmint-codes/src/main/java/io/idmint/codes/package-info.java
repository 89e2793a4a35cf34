/**
 * Public codes: an ID encrypted with FF1-AES (NIST SP 800-38G, Bouncy Castle's
 * {@code FPEFF1Engine}) and written as 15 Crockford base32 symbols with a key-version symbol
 * and a check symbol, for order numbers and other IDs shown to people. A code hides what the
 * raw ID carries (creation time, worker, volume), cannot be counted or guessed without the key,
 * is as unique as the ID (FF1 is a permutation) and reverses to it with the key.
 *
 * <p>{@link io.idmint.codes.Codes} builds a {@link io.idmint.codes.CodeCodec} from keys
 * ({@link io.idmint.codes.Keys} reads them from hex or a key file); the text format and why it
 * was chosen are documented on {@link io.idmint.codes.CodeCodec}. Everything else here is
 * package-private.
 */
package io.idmint.codes;

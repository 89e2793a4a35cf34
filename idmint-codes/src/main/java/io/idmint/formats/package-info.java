/**
 * The other ID formats the field uses, for callers who need one of them rather than idmint's
 * 64-bit IDs: {@link io.idmint.formats.UuidV7} (RFC 9562 UUID version 7),
 * {@link io.idmint.formats.ObjectId} (MongoDB's 12-byte ObjectId) and
 * {@link io.idmint.formats.Flake128} (Boundary-style 128-bit flake). Each has a builder for its
 * thread-safe {@link io.idmint.formats.FormatGenerator}, a documented bit layout and a decoder.
 *
 * <p>These live apart from {@code io.idmint.codes}: they mint new IDs of their own, need no key
 * and no third-party library, while codes encrypt idmint's IDs with Bouncy Castle. Time comes
 * from an injected {@link io.idmint.TimeSource} and randomness from an injected
 * {@link java.util.random.RandomGenerator}; generators are package-private.
 */
package io.idmint.formats;

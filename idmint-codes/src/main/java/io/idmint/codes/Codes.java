package io.idmint.codes;

import java.util.Objects;
import java.util.StringJoiner;

/**
 * Builds a {@link CodeCodec}. Each setter validates its value at once and may be called only
 * once (per key version for {@link #key}); {@link #build()} resolves the defaults. There is no
 * default key: a codec without one refuses to build.
 *
 * <pre>{@code
 * CodeCodec codes = Codes.newBuilder()
 *         .key(1, Keys.fromFile(Path.of("/etc/idmint/codes-v1.key")))
 *         .build();
 * String code = codes.encode(id);   // 15 symbols, such as "10TV5WV06VX97ET"
 * long back = codes.decode(code);   // id
 * }</pre>
 *
 * <p><b>Rotating keys.</b> Add the new key under a new version and make it current; keep the old
 * ones for as long as their codes must decode:
 * {@code .key(1, oldKey).key(2, newKey).currentVersion(2)}.
 */
public final class Codes {

    private final byte[][] keys = new byte[Ff1.VERSIONS][];
    private Integer currentVersion;
    private byte[] tweak;
    private Integer bits;

    private Codes() {
    }

    public static Codes newBuilder() {
        return new Codes();
    }

    /**
     * The AES key for codes of key {@code version} (0-31): 16 bytes (AES-128) or 32 bytes
     * (AES-256), from {@link Keys}. The array is copied.
     */
    public Codes key(int version, byte[] key) {
        requireArgument(version >= 0 && version < Ff1.VERSIONS, "key version must be 0 to "
                + (Ff1.VERSIONS - 1) + ", got " + version);
        Objects.requireNonNull(key, "key");
        requireState(keys[version] == null, "key version " + version + " was already set");
        Keys.checkLength(key.length, "key version " + version);
        requireArgument(!allZero(key), "key version " + version + " is all zeros: a placeholder, "
                + "not a key");
        keys[version] = key.clone();
        return this;
    }

    /**
     * The key version new codes are made with; default: the only key when there is one. Required
     * when there are several.
     */
    public Codes currentVersion(int version) {
        requireState(currentVersion == null, "currentVersion was already set");
        requireArgument(version >= 0 && version < Ff1.VERSIONS, "current key version must be 0 "
                + "to " + (Ff1.VERSIONS - 1) + ", got " + version);
        this.currentVersion = version;
        return this;
    }

    /**
     * FF1's tweak, up to 255 bytes; default empty. Deployments that share a key but must not
     * share codes (the same ID gives different codes) pass different tweaks, e.g. their
     * namespace in UTF-8. Changing it changes every code, like changing the key.
     */
    public Codes tweak(byte[] tweak) {
        requireState(this.tweak == null, "tweak was already set");
        Objects.requireNonNull(tweak, "tweak");
        requireArgument(tweak.length <= 255, "tweak must be at most 255 bytes, got "
                + tweak.length);
        this.tweak = tweak.clone();
        return this;
    }

    /**
     * The bits of the values codes are made of, {@value Ff1#MIN_BITS} to 63; default 63 (every
     * ID). Fewer bits make shorter codes for a smaller domain, such as a segment tag's or a
     * serial's counter: 2 + ceil(bits / 5) symbols (30 bits: 8 symbols, up to 1,073,741,823).
     * A value past the domain is refused, never wrapped. At least 20 bits: NIST SP 800-38G
     * Rev. 1 asks FF1 for a domain of at least a million values. Pass the tag or serial as
     * {@link #tweak} too, so that equal counters of two tags have different codes.
     */
    public Codes bits(int bits) {
        requireState(this.bits == null, "bits was already set");
        requireArgument(bits >= Ff1.MIN_BITS && bits <= Ff1.BITS, "bits must be "
                + Ff1.MIN_BITS + " to " + Ff1.BITS + " (FF1 wants a domain of at least a "
                + "million values), got " + bits);
        this.bits = bits;
        return this;
    }

    /**
     * A codec over the keys given.
     *
     * @throws IllegalArgumentException when there is no key, when the current version has no key,
     *     or when there are several keys and no current version
     * @throws IllegalStateException when Bouncy Castle's FF1 is disabled in this JVM
     */
    public CodeCodec build() {
        StringJoiner versions = new StringJoiner(", ");
        int count = 0;
        int only = -1;
        for (int v = 0; v < Ff1.VERSIONS; v++) {
            if (keys[v] != null) {
                versions.add(Integer.toString(v));
                count++;
                only = v;
            }
        }
        requireArgument(count > 0, "no key for codes: pass one to key(version, bytes), e.g. from "
                + "Keys.fromFile(path) or Keys.fromHex(hex); there is no default key");
        requireArgument(currentVersion != null || count == 1, "keys for versions " + versions
                + ": say which one makes new codes with currentVersion()");
        int current = currentVersion != null ? currentVersion : only;
        requireArgument(keys[current] != null, "current key version " + current + " has no key "
                + "(keys: " + versions + ")");
        int width = bits != null ? bits : Ff1.BITS;
        Ff1 ff1 = new Ff1(keys, tweak != null ? tweak : new byte[0], width);
        try {
            // Fails fast here rather than on the first request: Bouncy Castle can disable FF1.
            if (ff1.decrypt(current, ff1.encrypt(current, 1)) != 1) {
                throw new IllegalStateException("FF1 self-test failed: decrypt(encrypt(1)) != 1");
            }
        } catch (UnsupportedOperationException e) {
            throw new IllegalStateException("codes need FF1, which Bouncy Castle reports disabled "
                    + "(system property org.bouncycastle.fpe.disable or .disable_ff1): "
                    + e.getMessage(), e);
        }
        return new Ff1CodeCodec(ff1, current, versions.toString(), width);
    }

    private static boolean allZero(byte[] key) {
        int or = 0;
        for (byte b : key) {
            or |= b;
        }
        return or == 0;
    }

    private static void requireArgument(boolean ok, String message) {
        if (!ok) {
            throw new IllegalArgumentException(message);
        }
    }

    private static void requireState(boolean ok, String message) {
        if (!ok) {
            throw new IllegalStateException(message);
        }
    }
}

package io.idmint.codes;

import org.bouncycastle.crypto.engines.AESEngine;
import org.bouncycastle.crypto.fpe.FPEFF1Engine;
import org.bouncycastle.crypto.params.FPEParameters;
import org.bouncycastle.crypto.params.KeyParameter;

/**
 * FF1-AES over the non-negative {@code long}s of {@code bits} bits (63 for IDs; fewer for a
 * counter's smaller domain), with Bouncy Castle doing all the cryptography. The value is handed
 * to FF1 as its binary numeral, {@code bits} digits in radix 2, most significant first, so
 * FF1's {@code NUM₂} of the numeral is the value itself.
 *
 * <p>Bouncy Castle engines keep per-call state and are not thread-safe, and {@code init}
 * expands the AES key, so each thread keeps its own initialised engines (one per direction and
 * key version, made on first use) and its digit buffers in a {@link ThreadLocal}.
 */
final class Ff1 {

    static final int RADIX = 2;
    /** The bits of an ID, the default domain. */
    static final int BITS = 63;
    /**
     * The fewest bits a domain may have: NIST SP 800-38G Rev. 1 asks for at least a million
     * values (radix^minlen ≥ 10^6), and 2^20 is the first power of two past it.
     */
    static final int MIN_BITS = 20;
    static final int VERSIONS = 32;

    private final KeyParameter[] keys;
    private final byte[] tweak;
    private final int bits;
    private final ThreadLocal<PerThread> perThread;

    private static final class PerThread {
        final FPEFF1Engine[] encrypt = new FPEFF1Engine[VERSIONS];
        final FPEFF1Engine[] decrypt = new FPEFF1Engine[VERSIONS];
        final byte[] in;
        final byte[] out;

        PerThread(int bits) {
            in = new byte[bits];
            out = new byte[bits];
        }
    }

    /** @param keys AES keys by version, {@code null} where there is none */
    Ff1(byte[][] keys, byte[] tweak) {
        this(keys, tweak, BITS);
    }

    /** Over the {@code bits}-bit values, {@link #MIN_BITS} to 63. */
    Ff1(byte[][] keys, byte[] tweak, int bits) {
        this.bits = bits;
        this.perThread = ThreadLocal.withInitial(() -> new PerThread(bits));
        this.keys = new KeyParameter[VERSIONS];
        for (int v = 0; v < VERSIONS; v++) {
            this.keys[v] = keys[v] == null ? null : new KeyParameter(keys[v]);
        }
        this.tweak = tweak.clone();
    }

    /**
     * A Bouncy Castle FF1 engine on Bouncy Castle's AES, initialised; the one place engines are
     * made, so the NIST sample vectors test exactly what codes run on.
     */
    static FPEFF1Engine engine(boolean forEncryption, byte[] key, int radix, byte[] tweak) {
        return engine(forEncryption, new KeyParameter(key), radix, tweak);
    }

    private static FPEFF1Engine engine(boolean forEncryption, KeyParameter key, int radix,
            byte[] tweak) {
        FPEFF1Engine engine = new FPEFF1Engine(AESEngine.newInstance());
        engine.init(forEncryption, new FPEParameters(key, radix, tweak));
        return engine;
    }

    boolean hasVersion(int version) {
        return version >= 0 && version < VERSIONS && keys[version] != null;
    }

    /** FF1.Encrypt of a value in [0, 2^bits) under the key of {@code version}, which exists. */
    long encrypt(int version, long value) {
        PerThread t = perThread.get();
        FPEFF1Engine e = t.encrypt[version];
        if (e == null) {
            e = t.encrypt[version] = engine(true, keys[version], RADIX, tweak);
        }
        return run(e, t, value, bits);
    }

    /** FF1.Decrypt, the inverse of {@link #encrypt(int, long)}. */
    long decrypt(int version, long value) {
        PerThread t = perThread.get();
        FPEFF1Engine e = t.decrypt[version];
        if (e == null) {
            e = t.decrypt[version] = engine(false, keys[version], RADIX, tweak);
        }
        return run(e, t, value, bits);
    }

    private static long run(FPEFF1Engine engine, PerThread t, long value, int bits) {
        byte[] in = t.in;
        for (int i = 0; i < bits; i++) {
            in[i] = (byte) ((value >>> (bits - 1 - i)) & 1);
        }
        engine.processBlock(in, 0, bits, t.out, 0);
        long result = 0;
        for (byte digit : t.out) {
            result = (result << 1) | digit;
        }
        return result;
    }
}

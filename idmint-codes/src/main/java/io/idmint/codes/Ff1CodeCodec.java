package io.idmint.codes;

/** {@link CodeCodec} over {@link Ff1} and {@link CodeText}. */
final class Ff1CodeCodec implements CodeCodec {

    private final Ff1 ff1;
    private final int currentVersion;
    /** The versions this codec has, as error messages list them. */
    private final String versions;
    private final int bits;

    Ff1CodeCodec(Ff1 ff1, int currentVersion, String versions, int bits) {
        this.ff1 = ff1;
        this.currentVersion = currentVersion;
        this.versions = versions;
        this.bits = bits;
    }

    @Override
    public String encode(long id) {
        return CodeText.format(bits, currentVersion, ff1.encrypt(currentVersion, checkId(id)),
                false);
    }

    @Override
    public String encodeGrouped(long id) {
        return CodeText.format(bits, currentVersion, ff1.encrypt(currentVersion, checkId(id)),
                true);
    }

    @Override
    public long decode(String code) {
        CodeText.Parsed p = CodeText.parse(bits, code);
        if (!ff1.hasVersion(p.version())) {
            throw new IllegalArgumentException("code '" + CodeText.echo(code) + "' was made with "
                    + "key version " + p.version() + ", which this codec does not have (it has "
                    + versions + ")");
        }
        return ff1.decrypt(p.version(), p.value());
    }

    @Override
    public int keyVersion(String code) {
        return CodeText.parse(bits, code).version();
    }

    @Override
    public int currentVersion() {
        return currentVersion;
    }

    @Override
    public int bits() {
        return bits;
    }

    @Override
    public int length() {
        return CodeText.length(bits);
    }

    @Override
    public String toString() {
        return "CodeCodec[FF1-AES, current key version " + currentVersion + ", versions "
                + versions + (bits == Ff1.BITS ? "" : ", " + bits + "-bit values") + "]";
    }

    private long checkId(long id) {
        if (id < 0) {
            throw new IllegalArgumentException("ID " + id + " is negative; codes encode IDs from 0 "
                    + "to 2^" + bits + "-1");
        }
        if (bits < Ff1.BITS && id >>> bits != 0) {
            throw new IllegalArgumentException("value " + id + " is past this codec's domain, 0 "
                    + "to 2^" + bits + "-1 (" + ((1L << bits) - 1) + "): build a codec of more "
                    + "bits for it");
        }
        return id;
    }
}

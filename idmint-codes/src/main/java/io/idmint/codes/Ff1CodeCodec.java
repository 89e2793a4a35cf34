package io.idmint.codes;

/** {@link CodeCodec} over {@link Ff1} and {@link CodeText}. */
final class Ff1CodeCodec implements CodeCodec {

    private final Ff1 ff1;
    private final int currentVersion;
    /** The versions this codec has, as error messages list them. */
    private final String versions;

    Ff1CodeCodec(Ff1 ff1, int currentVersion, String versions) {
        this.ff1 = ff1;
        this.currentVersion = currentVersion;
        this.versions = versions;
    }

    @Override
    public String encode(long id) {
        return CodeText.format(currentVersion, ff1.encrypt(currentVersion, checkId(id)), false);
    }

    @Override
    public String encodeGrouped(long id) {
        return CodeText.format(currentVersion, ff1.encrypt(currentVersion, checkId(id)), true);
    }

    @Override
    public long decode(String code) {
        CodeText.Parsed p = CodeText.parse(code);
        if (!ff1.hasVersion(p.version())) {
            throw new IllegalArgumentException("code '" + CodeText.echo(code) + "' was made with "
                    + "key version " + p.version() + ", which this codec does not have (it has "
                    + versions + ")");
        }
        return ff1.decrypt(p.version(), p.value());
    }

    @Override
    public int keyVersion(String code) {
        return CodeText.parse(code).version();
    }

    @Override
    public int currentVersion() {
        return currentVersion;
    }

    @Override
    public String toString() {
        return "CodeCodec[FF1-AES, current key version " + currentVersion + ", versions "
                + versions + "]";
    }

    private static long checkId(long id) {
        if (id < 0) {
            throw new IllegalArgumentException("ID " + id + " is negative; codes encode IDs from 0 "
                    + "to 2^63-1");
        }
        return id;
    }
}

package io.idmint.jackson;

/** How an ID is written in JSON: always as a string, in one of these forms. */
public enum IdFormat {
    /** Base 10: {@code "123456789012345678"}. */
    DECIMAL,
    /** 16 lowercase hex digits. */
    HEX,
    /** 13 Crockford base32 symbols. */
    BASE32,
    /**
     * The public code (15 symbols, encrypted, with a check symbol): needs the codec given to
     * the module's builder ({@link IdmintModule.Builder#codes}, the same in idmint-jackson3)
     * and idmint-codes on the class path.
     */
    CODE
}

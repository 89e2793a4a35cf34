package io.idmint.jackson;

import io.idmint.IdCodec;
import java.util.function.LongFunction;
import java.util.function.ToLongFunction;

/** One text form of IDs: how an ID is written, and how a string is read back. */
final class IdText {

    static final IdText DECIMAL = of(IdFormat.DECIMAL, null, null);

    private final IdFormat format;
    private final LongFunction<String> write;
    private final ToLongFunction<String> read;

    private IdText(IdFormat format, LongFunction<String> write, ToLongFunction<String> read) {
        this.format = format;
        this.write = write;
        this.read = read;
    }

    /** The form {@code format}; {@code CODE} takes the codes' encoder and decoder. */
    static IdText of(IdFormat format, LongFunction<String> encode, ToLongFunction<String> decode) {
        return switch (format) {
            case DECIMAL -> new IdText(format, IdCodec.DECIMAL::format, IdCodec.DECIMAL::parse);
            case HEX -> new IdText(format, IdCodec.HEX::format, IdCodec.HEX::parse);
            case BASE32 -> new IdText(format, IdCodec.BASE32::format, IdCodec.BASE32::parse);
            case CODE -> new IdText(format, encode, decode);
        };
    }

    IdFormat format() {
        return format;
    }

    String write(long id) {
        return write.apply(id);
    }

    /** @throws IllegalArgumentException naming the text when it is not an ID in this form */
    long read(String text) {
        return read.applyAsLong(text);
    }
}

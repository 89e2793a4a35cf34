package io.idmint.jackson;

import io.idmint.IdCodec;
import io.idmint.TypedId;
import java.util.function.LongFunction;
import java.util.function.ToLongFunction;

/**
 * One text form of IDs: how an ID is written, and how a string is read back. These are the
 * rules idmint-jackson (Jackson 2) and idmint-jackson3 (Jackson 3) both follow, kept free of
 * either Jackson line so that one class serves both: which members are IDs, in which form, and
 * the messages that refuse a misplaced {@link JsonId}. Applications format IDs with
 * {@link IdCodec} (and public codes with idmint-codes' {@code CodeCodec}).
 */
public final class IdText {

    /** The form of IDs found by name ({@code allIdProperties}). */
    public static final IdText DECIMAL = new IdText(IdFormat.DECIMAL, IdCodec.DECIMAL::format,
            IdCodec.DECIMAL::parse);

    private final IdFormat format;
    private final LongFunction<String> write;
    private final ToLongFunction<String> read;

    private IdText(IdFormat format, LongFunction<String> write, ToLongFunction<String> read) {
        this.format = format;
        this.write = write;
        this.read = read;
    }

    /**
     * The form of {@code member}, of type {@code type}, annotated {@code id} (its format, or
     * a type prefix);
     * {@code CODE} takes the codes' encoder and decoder, or {@code null} when the module has
     * none.
     *
     * @throws IllegalArgumentException naming the member when its type is not {@code long} or
     *     {@code Long}, or when it asks for codes and the module has no codec
     */
    public static IdText of(JsonId id, String member, Class<?> type,
            LongFunction<String> encode, ToLongFunction<String> decode) {
        if (type != long.class && type != Long.class) {
            throw new IllegalArgumentException("@JsonId on " + member + ": its type "
                    + type.getName() + " is not long or Long");
        }
        IdFormat format = id.value();
        String prefix = id.prefix();
        if (!prefix.isEmpty()) {
            String bad = TypedId.prefixProblem(prefix);
            if (bad != null) {
                throw new IllegalArgumentException("@JsonId(prefix = \"" + prefix + "\") on "
                        + member + ": the prefix " + bad);
            }
            if (format != IdFormat.DECIMAL && format != IdFormat.BASE32) {
                throw new IllegalArgumentException("@JsonId(" + format + ", prefix = \"" + prefix
                        + "\") on " + member + ": a prefixed ID is written in base32 "
                        + "(prefix_ + 13 symbols); leave the format out");
            }
            return new IdText(IdFormat.BASE32, value -> new TypedId(prefix, value).toString(),
                    text -> TypedId.parse(text, prefix).id());
        }
        return switch (format) {
            case DECIMAL -> DECIMAL;
            case HEX -> new IdText(format, IdCodec.HEX::format, IdCodec.HEX::parse);
            case BASE32 -> new IdText(format, IdCodec.BASE32::format, IdCodec.BASE32::parse);
            case CODE -> {
                if (encode == null || decode == null) {
                    throw new IllegalArgumentException("@JsonId(CODE) on " + member
                            + " needs the codes codec: IdmintModule.newBuilder().codes(codec)");
                }
                yield new IdText(format, encode, decode);
            }
        };
    }

    /**
     * Whether a property is an ID by its name, for {@code allIdProperties}: a {@code long} or
     * {@code Long} named {@code id} or ending in {@code Id} or {@code _id}.
     */
    public static boolean isIdByName(String name, Class<?> type) {
        return (type == long.class || type == Long.class)
                && (name.equals("id") || name.endsWith("Id") || name.endsWith("_id"));
    }

    public IdFormat format() {
        return format;
    }

    public String write(long id) {
        return write.apply(id);
    }

    /** @throws IllegalArgumentException naming the text when it is not an ID in this form */
    public long read(String text) {
        return read.applyAsLong(text);
    }
}

package io.idmint.hibernate;

import io.idmint.FencedUuidV7;
import io.idmint.Layout;
import java.lang.reflect.Field;
import java.lang.reflect.Member;
import java.lang.reflect.Method;
import java.util.UUID;
import java.util.function.LongFunction;
import java.util.function.Supplier;

/**
 * The attribute a generator fills, key or not: a {@code long} or {@code Long} holds the value as
 * it is, a {@code String} its decimal digits (or, for {@code @IdmintId(code = true)}, its public
 * code), and for {@code @IdmintId} a {@link UUID} the ID's fenced UUIDv7. Any other type is
 * refused when Hibernate builds its metadata, naming the attribute.
 */
final class Attribute {

    private Attribute() {
    }

    /**
     * How a value is stored in the attribute {@code member}.
     *
     * @param annotation the annotation as the message names it, e.g. {@code @IdmintId}
     * @param code the public code instead of the digits, looked up once the type is known to
     *     hold it; or null for the digits
     * @param layout the layout of the IDs, for a {@code UUID} attribute (their fenced UUIDv7s);
     *     null when the values are no IDs (segments), which a UUID cannot hold
     * @throws IllegalArgumentException naming the attribute, when its type holds no ID
     */
    static LongFunction<Object> form(String annotation, Member member,
            Supplier<LongFunction<String>> code, Supplier<Layout> layout) {
        Class<?> type = member instanceof Field f ? f.getType() : ((Method) member).getReturnType();
        if (code != null) {
            if (type != String.class) {
                throw new IllegalArgumentException(where(annotation, member) + ": code = true "
                        + "makes a public code, a String; the attribute is a " + type.getName());
            }
            return code.get()::apply;
        }
        if (type == long.class || type == Long.class) {
            return Long::valueOf;
        }
        if (type == String.class) {
            return Long::toString;
        }
        if (type == UUID.class && layout != null) {
            Layout l = layout.get();
            try {
                FencedUuidV7.requireFits(l);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(where(annotation, member) + ": a UUID "
                        + "attribute holds the ID's fenced UUIDv7, and " + e.getMessage(), e);
            }
            return id -> FencedUuidV7.of(id, l);
        }
        throw new IllegalArgumentException(where(annotation, member) + ": the attribute must be "
                + "a long, Long" + (layout != null ? ", String or UUID" : " or String")
                + ", not a " + type.getName());
    }

    /** {@code @IdmintId on com.example.Order.number}. */
    static String where(String annotation, Member member) {
        return annotation + " on " + member.getDeclaringClass().getName() + "."
                + member.getName();
    }
}

package io.idmint.jackson;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a {@code long} or {@code Long} property (field, accessor, record component or creator
 * parameter) as an ID: {@link IdmintModule} (Jackson 2) and idmint-jackson3's module (Jackson
 * 3) write it as a JSON string in {@link #value()} and read it from such a string or from a JSON
 * number. It is plain Java, so one class serves both Jackson lines.
 *
 * <pre>{@code
 * record Order(@JsonId long id, @JsonId(IdFormat.CODE) long publicId, String item) { }
 * record Invoice(@JsonId(prefix = "inv") long id, @JsonId(prefix = "ord") long orderId) { }
 * }</pre>
 */
@Target({ElementType.FIELD, ElementType.METHOD, ElementType.PARAMETER,
        ElementType.RECORD_COMPONENT})
@Retention(RetentionPolicy.RUNTIME)
public @interface JsonId {

    /** The form of the string; default decimal. */
    IdFormat value() default IdFormat.DECIMAL;

    /**
     * A type prefix, TypeID's convention ({@link io.idmint.TypedId}): the ID is written {@code
     * prefix_} + its 13-symbol base32 form in lowercase ({@code "ord_038gn61tm0000"}), and read
     * only with that prefix, so an {@code inv_…} where an order is expected is refused, naming
     * both. With a prefix, {@link #value()} stays at its default or is {@code BASE32}. Default:
     * none.
     */
    String prefix() default "";
}

package io.idmint.entity;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A field that takes the next value of the segment tag {@link #value()} of the application's
 * {@link io.idmint.segment.SegmentGenerator} before its entity is first inserted: dense,
 * increasing values per tag, made in memory a range at a time. Dense means countable: a value a
 * customer sees tells them how many came before it. Filled only while unset, as {@link IdmintId};
 * a {@code long}, {@code Long} or {@code String} (decimal digits) field.
 *
 * <pre>{@code
 * @IdmintSegment("invoice-number")
 * long invoiceNumber;
 * }</pre>
 *
 * <p>For JPA entities use {@code io.idmint.hibernate.IdmintSegment}.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.FIELD)
public @interface IdmintSegment {

    /** The tag: {@value io.idmint.spi.support.Names#TAG_RULE}. */
    String value();

    /**
     * Whether a tag the store does not know yet is created on first use (starting at 1, with a
     * step of 1,000 that ranges adapt from); default true. Off: a tag the store does not list
     * is refused when the entity is checked ({@link EntityIds#check}), naming it.
     */
    boolean autoCreate() default true;
}

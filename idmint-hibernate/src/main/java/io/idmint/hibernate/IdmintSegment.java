package io.idmint.hibernate;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.hibernate.annotations.IdGeneratorType;
import org.hibernate.annotations.ValueGenerationType;

/**
 * A value drawn from the segment tag {@link #value()} of the application's {@link
 * io.idmint.segment.SegmentGenerator} (the starter's bean, or the Hibernate property {@value
 * IdmintHibernate#SEGMENT_GENERATOR}): dense, increasing values per tag, made in memory a range at
 * a time. Dense means countable: a value a customer sees tells them how many came before it.
 *
 * <p>On the entity's key or on any other attribute (an invoice number beside a key the database
 * makes): it is filled once, at insert, and an update never rewrites it. A {@code long} or
 * {@code Long} attribute holds the value, a {@code String} one its decimal digits; another type
 * fails when Hibernate starts, naming the attribute.
 *
 * <pre>{@code
 * @Id @IdmintSegment("order")
 * private Long id;
 * @IdmintSegment("invoice-number")
 * private long invoiceNumber;
 * }</pre>
 */
@IdGeneratorType(IdmintSegmentGenerator.class)
@ValueGenerationType(generatedBy = IdmintSegmentGenerator.class)
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.FIELD, ElementType.METHOD})
public @interface IdmintSegment {

    /** The tag, 1 to 64 of {@code A-Z a-z 0-9 . _ -}. */
    String value();

    /**
     * Whether a tag the store does not know yet is created on first use (starting at 1, with
     * the store's default step); default true. Off: the insert fails naming the tag.
     */
    boolean autoCreate() default true;
}

package io.idmint.hibernate;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.hibernate.annotations.IdGeneratorType;

/**
 * A {@code long}/{@code Long} entity ID drawn from the segment tag {@link #value()} of the
 * application's {@link io.idmint.segment.SegmentGenerator} (the starter's bean, or the Hibernate
 * property {@value IdmintHibernate#SEGMENT_GENERATOR}): dense, increasing IDs per tag, made in
 * memory a range at a time.
 *
 * <pre>{@code
 * @Id @IdmintSegment("order")
 * private Long id;
 * }</pre>
 */
@IdGeneratorType(IdmintSegmentGenerator.class)
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

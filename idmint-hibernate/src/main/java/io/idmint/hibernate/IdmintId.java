package io.idmint.hibernate;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.hibernate.annotations.IdGeneratorType;
import org.hibernate.annotations.ValueGenerationType;

/**
 * An ID from the application's {@link io.idmint.IdGenerator}: the starter's bean in Spring Boot,
 * else the one passed in the Hibernate property {@value IdmintHibernate#ID_GENERATOR}, else a
 * standalone generator on the static registry in {@code ./data} (system property {@code
 * idmint.data-dir}). The ID is made in memory before the insert, so JDBC batching works.
 *
 * <p>On the entity's key or on any other attribute (a public order number beside a key the
 * database makes): it is filled once, at insert, and an update never rewrites it. A {@code long}
 * or {@code Long} attribute holds the ID; a {@code String} one its decimal digits, or with
 * {@link #code()} its public code; a {@link java.util.UUID} one the ID's fenced UUIDv7 ({@link
 * io.idmint.FencedUuidV7}: unique by construction, sorted as the IDs, for a {@code uuid}
 * column). Another type fails when Hibernate starts, naming the attribute.
 *
 * <pre>{@code
 * @Entity
 * class Order {
 *     @Id @IdmintId
 *     private Long id;
 *     @IdmintId(code = true)
 *     private String publicNumber;   // e.g. "14MCWBB18R68JRM", not countable
 * }
 *
 * @Entity
 * class Event {
 *     @Id @IdmintId
 *     private UUID id;               // a fenced UUIDv7, e.g. 019ad3c4-21a0-7000-8a3c-...
 * }
 * }</pre>
 */
@IdGeneratorType(IdmintIdGenerator.class)
@ValueGenerationType(generatedBy = IdmintIdGenerator.class)
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.FIELD, ElementType.METHOD})
public @interface IdmintId {

    /**
     * A {@code String} attribute holds the ID's public code (idmint-codes: the starter's
     * {@code CodeCodec} from {@code idmint.codes.key}, or the Hibernate property {@value
     * IdmintHibernate#CODES}) rather than its digits; default false.
     */
    boolean code() default false;
}

package io.idmint.entity;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A field that takes an ID of the application's {@link io.idmint.IdGenerator} before its entity
 * is first inserted: on the key or on any other field (a public order number beside a key the
 * database makes). {@link EntityIds} fills it only while it is unset (null, {@code 0} for a
 * {@code long}, empty for a {@code String}), so an update never rewrites it. A {@code long} or
 * {@code Long} field holds the ID; a {@code String} one its decimal digits, or with {@link
 * #code()} its public code; a {@link java.util.UUID} one the ID's fenced UUIDv7 ({@link
 * io.idmint.FencedUuidV7}: unique by construction, sorted as the IDs). Another type is refused,
 * naming the field.
 *
 * <pre>{@code
 * @Table("orders")
 * class Order {
 *     @Id @IdmintId
 *     Long id;
 *     @IdmintId(code = true)
 *     String publicNumber;   // e.g. "14MCWBB18R68JRM", not countable
 * }
 * }</pre>
 *
 * <p>For JPA entities use {@code io.idmint.hibernate.IdmintId}, which Hibernate reads itself.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.FIELD)
public @interface IdmintId {

    /**
     * A {@code String} field holds the ID's public code (idmint-codes, from the application's
     * {@code idmint.codes.key}) rather than its digits; default false.
     */
    boolean code() default false;
}

package io.idmint.hibernate;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.hibernate.annotations.IdGeneratorType;

/**
 * A {@code long}/{@code Long} entity ID from the application's {@link io.idmint.IdGenerator}:
 * the starter's bean in Spring Boot, else the one passed in the Hibernate property
 * {@value IdmintHibernate#ID_GENERATOR}, else a standalone generator on the static registry in
 * {@code ./data} (system property {@code idmint.data-dir}). The ID is made in memory before the
 * insert, so JDBC batching works.
 *
 * <pre>{@code
 * @Entity
 * class Order {
 *     @Id @IdmintId
 *     private Long id;
 * }
 * }</pre>
 */
@IdGeneratorType(IdmintIdGenerator.class)
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.FIELD, ElementType.METHOD})
public @interface IdmintId {
}

package io.idmint.hibernate;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.hibernate.annotations.IdGeneratorType;
import org.hibernate.annotations.ValueGenerationType;

/**
 * A value of serial {@link #value()} (docs/serials.md): the next number of its period as its
 * template writes it, such as {@code INV-20261128-000042}, made in memory at insert (an update
 * never rewrites it). On a {@code String} attribute, key or not; another type fails when
 * Hibernate starts, naming the attribute. The serial must be defined in the segment store
 * (idmint serial define, {@code POST /api/v1/serials}, {@code Serials.define}): an insert of an
 * undefined one fails naming it. The values come from the starter's {@code Serials} bean, or
 * without Spring from the Hibernate property {@value IdmintHibernate#SERIALS} (or a {@code
 * Serials} over {@value IdmintHibernate#RANGE_STORE}).
 *
 * <pre>{@code
 * @Entity
 * class Invoice {
 *     @Id @IdmintId
 *     private Long id;
 *     @IdmintSerial("invoice")
 *     private String number;        // INV-20261128-000042
 * }
 * }</pre>
 */
@IdGeneratorType(IdmintSerialGenerator.class)
@ValueGenerationType(generatedBy = IdmintSerialGenerator.class)
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.FIELD, ElementType.METHOD})
public @interface IdmintSerial {

    /** The serial's name. */
    String value();
}

/**
 * IDs for the fields of entities whose persistence framework has no ID generator SPI of its own
 * (Spring Data JDBC, MyBatis): {@link io.idmint.entity.IdmintId} and
 * {@link io.idmint.entity.IdmintSegment} mark the fields, {@link io.idmint.entity.EntityIds}
 * fills the ones still unset before an insert. Plain Java over idmint-core; the integrations
 * (the Spring Boot starter's Spring Data JDBC callback, idmint-mybatis) call it. JPA entities use
 * idmint-hibernate's annotations of the same names instead, which Hibernate reads itself.
 */
package io.idmint.entity;

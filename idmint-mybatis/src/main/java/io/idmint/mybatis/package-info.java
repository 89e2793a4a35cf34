/**
 * idmint in MyBatis: {@link io.idmint.mybatis.IdmintInterceptor} fills idmint-entity's
 * {@code @IdmintId} and {@code @IdmintSegment} fields of an insert's parameters before MyBatis
 * binds them (one entity, or a list for a multi-row or batch insert); {@link
 * io.idmint.mybatis.IdmintIdentifierGenerator} is MyBatis-Plus's {@code IdentifierGenerator}, so
 * {@code @TableId(type = ASSIGN_ID)} takes idmint IDs; {@link
 * io.idmint.mybatis.IdmintMybatisAutoConfiguration} registers both with the Spring Boot starter.
 * Uses idmint-core and idmint-entity; MyBatis, MyBatis-Plus and Spring Boot are the
 * application's.
 */
package io.idmint.mybatis;

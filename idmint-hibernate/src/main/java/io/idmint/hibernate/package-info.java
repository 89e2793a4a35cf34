/**
 * Hibernate ORM entity IDs from idmint: {@link io.idmint.hibernate.IdmintId} (Snowflake-family
 * IDs) and {@link io.idmint.hibernate.IdmintSegment} (dense IDs per tag).
 */
package io.idmint.hibernate;

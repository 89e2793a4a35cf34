/**
 * Spring Boot auto-configuration for idmint: the {@code idmint.*} properties, the
 * {@link io.idmint.IdGenerator}, {@link io.idmint.segment.SegmentGenerator} and codes codec
 * beans, an Actuator health indicator, Micrometer meters and idmint's Jackson module (IDs as
 * JSON strings). Works on Spring Boot 3.5 and 4.0.
 */
package io.idmint.spring;

/**
 * idmint's Jackson module for Jackson 3 ({@code tools.jackson}, which Spring Boot 4 uses):
 * {@link io.idmint.jackson3.IdmintModule} writes IDs as JSON strings, which JavaScript reads
 * without losing precision, and reads strings or numbers. The annotation and the forms are
 * idmint-jackson's {@link io.idmint.jackson.JsonId} and {@link io.idmint.jackson.IdFormat}, the
 * same for both Jackson lines.
 */
package io.idmint.jackson3;

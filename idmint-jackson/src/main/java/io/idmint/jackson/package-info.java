/**
 * A Jackson module for 64-bit IDs: {@link io.idmint.jackson.IdmintModule} writes IDs as JSON
 * strings, which JavaScript reads without losing precision, and reads strings or numbers.
 */
package io.idmint.jackson;

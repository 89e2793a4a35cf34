/**
 * JSON as the server writes and reads it: the answers that carry IDs written straight as bytes
 * ({@link io.idmint.server.json.JsonBytes}, {@link io.idmint.server.json.ApiJson}: a benchmark
 * shows they matter), every other answer through Jackson's generator ({@link
 * io.idmint.server.json.Json}), and request bodies through Jackson's parser, strictly ({@link
 * io.idmint.server.json.StrictJson}).
 *
 * <p>May use: the JDK, jackson-core (carried by Vert.x), Vert.x's buffer. Nothing else of the
 * server.
 */
package io.idmint.server.json;

/**
 * JSON as the server writes and reads it: answers written straight as bytes ({@link
 * io.idmint.server.json.JsonBytes}), escaping ({@link io.idmint.server.json.Json}), a small tree
 * writer for the CLI and admin answers ({@link io.idmint.server.json.ApiJson}), and the strict
 * parser of request bodies ({@link io.idmint.server.json.StrictJson}).
 *
 * <p>May use: the JDK. Nothing else of the server.
 */
package io.idmint.server.json;

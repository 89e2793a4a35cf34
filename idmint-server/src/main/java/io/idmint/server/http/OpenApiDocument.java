package io.idmint.server.http;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * The HTTP API's OpenAPI 3.1 document as {@code GET /openapi.json} serves it: the one shipped in
 * the jar ({@code src/main/resources/openapi.json}) with the {@code count} bound set to this
 * server's max-count (the shipped file says the default, 10000).
 */
final class OpenApiDocument {

    private static final String COUNT = "\"Count\": {";
    private static final String MAXIMUM = "\"maximum\": 10000,";

    private OpenApiDocument() {
    }

    /** The document for a server whose max-count is {@code maxCount}. */
    static byte[] forMaxCount(int maxCount) {
        String text = shipped();
        int count = text.indexOf(COUNT);
        int max = count < 0 ? -1 : text.indexOf(MAXIMUM, count);
        if (max < 0) {
            throw new IllegalStateException("openapi.json has no " + COUNT + " schema with "
                    + MAXIMUM);
        }
        return (text.substring(0, max) + "\"maximum\": " + maxCount + ","
                + text.substring(max + MAXIMUM.length())).getBytes(StandardCharsets.UTF_8);
    }

    private static String shipped() {
        try (InputStream in = OpenApiDocument.class.getResourceAsStream("/openapi.json")) {
            if (in == null) {
                throw new IllegalStateException("openapi.json is missing from the build");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}

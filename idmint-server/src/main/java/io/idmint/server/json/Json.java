package io.idmint.server.json;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.io.JsonStringEncoder;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;

/**
 * Writes one JSON object, in the order fields are added, with Jackson's generator (the one
 * Vert.x already carries): the answers that are not hot (status, health, tags, problems, the
 * CLI's {@code --json}). The hot ones, IDs, are written as bytes by {@link JsonBytes}.
 */
public final class Json {

    private static final JsonFactory JSON = JsonFactory.builder().build();

    private final StringWriter text = new StringWriter();
    private final JsonGenerator out;
    private String done;

    public Json() {
        try {
            out = JSON.createGenerator(text);
            out.writeStartObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public Json add(String name, String value) {
        try {
            out.writeStringField(name, value);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return this;
    }

    public Json add(String name, long value) {
        try {
            out.writeNumberField(name, value);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return this;
    }

    /**
     * Adds a number, or JSON {@code null} when it is not {@code present}: an absent value (no
     * worker held yet, a lease that never runs out) is null, never a sentinel such as -1.
     */
    public Json add(String name, long value, boolean present) {
        if (present) {
            return add(name, value);
        }
        try {
            out.writeNullField(name);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return this;
    }

    /** Adds a value that is already JSON (an array, an object, a literal). */
    public Json addRaw(String name, String json) {
        try {
            out.writeFieldName(name);
            out.writeRawValue(json);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return this;
    }

    /** The object; nothing can be added after. */
    @Override
    public String toString() {
        if (done == null) {
            try {
                out.writeEndObject();
                out.close();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            done = text.toString();
        }
        return done;
    }

    /** A JSON string literal (RFC 8259 §7). */
    public static String quote(String s) {
        return '"' + new String(JsonStringEncoder.getInstance().quoteAsString(s)) + '"';
    }
}

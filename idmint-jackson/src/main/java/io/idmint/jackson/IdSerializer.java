package io.idmint.jackson;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.ser.std.StdSerializer;
import java.io.IOException;

/** Writes a {@code long} ID as a JSON string. */
final class IdSerializer extends StdSerializer<Long> {

    private static final long serialVersionUID = 1L;

    private final transient IdText text;

    IdSerializer(IdText text) {
        super(Long.class);
        this.text = text;
    }

    @Override
    public void serialize(Long id, JsonGenerator gen, SerializerProvider provider)
            throws IOException {
        try {
            gen.writeString(text.write(id));
        } catch (IllegalArgumentException e) {
            provider.reportMappingProblem(e, "cannot write ID %d as %s: %s", id, text.format(),
                    e.getMessage());
        }
    }
}

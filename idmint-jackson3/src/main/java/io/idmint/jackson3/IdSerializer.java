package io.idmint.jackson3;

import io.idmint.jackson.IdText;
import tools.jackson.core.JsonGenerator;
import tools.jackson.databind.SerializationContext;
import tools.jackson.databind.ser.std.StdSerializer;

/** Writes a {@code long} ID as a JSON string. */
final class IdSerializer extends StdSerializer<Long> {

    private final transient IdText text;

    IdSerializer(IdText text) {
        super(Long.class);
        this.text = text;
    }

    @Override
    public void serialize(Long id, JsonGenerator gen, SerializationContext ctxt) {
        try {
            gen.writeString(text.write(id));
        } catch (IllegalArgumentException e) {
            ctxt.reportMappingProblem(e, "cannot write ID %d as %s: %s", id, text.format(),
                    e.getMessage());
        }
    }
}

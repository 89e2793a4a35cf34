package io.idmint.jackson3;

import io.idmint.jackson.IdText;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.databind.DeserializationContext;
import tools.jackson.databind.deser.std.StdScalarDeserializer;

/**
 * Reads an ID from a JSON string in its form, or from a JSON number: clients that sent numbers
 * before keep working. Negative numbers, fractions and other tokens are refused with a message
 * naming the value.
 */
final class IdDeserializer extends StdScalarDeserializer<Long> {

    private final transient IdText text;
    private final boolean primitive;

    IdDeserializer(IdText text, boolean primitive) {
        super(primitive ? Long.TYPE : Long.class);
        this.text = text;
        this.primitive = primitive;
    }

    @Override
    public Long deserialize(JsonParser p, DeserializationContext ctxt) {
        JsonToken t = p.currentToken();
        if (t == JsonToken.VALUE_STRING) {
            String s = p.getString().trim();
            try {
                return text.read(s);
            } catch (IllegalArgumentException e) {
                return (Long) ctxt.handleWeirdStringValue(Long.class, s, "not a %s ID: %s",
                        text.format(), e.getMessage());
            }
        }
        if (t == JsonToken.VALUE_NUMBER_INT
                && p.getNumberType() != JsonParser.NumberType.BIG_INTEGER
                && p.getLongValue() >= 0) {
            return p.getLongValue();
        }
        if (t == JsonToken.VALUE_NUMBER_INT || t == JsonToken.VALUE_NUMBER_FLOAT) {
            return (Long) ctxt.handleWeirdNumberValue(Long.class, p.getNumberValue(),
                    "not an ID: IDs are whole numbers from 0 to %d", Long.MAX_VALUE);
        }
        return (Long) ctxt.handleUnexpectedToken(Long.class, p);
    }

    @Override
    public Long getNullValue(DeserializationContext ctxt) {
        if (primitive) {
            return ctxt.reportInputMismatch(this, "null is not an ID (the property is a "
                    + "primitive long; make it Long to allow null)");
        }
        return null;
    }
}

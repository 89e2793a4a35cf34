package io.idmint.server.json;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.io.JsonEOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads a request body as JSON (RFC 8259) with Jackson's streaming parser (the one Vert.x
 * already carries), strictly: a name given twice in one object is an error, not a silent "last
 * one wins", and every error is said in plain words with the character where it is (counted
 * from 1), never the parser's own message (which names its classes and features). Values come
 * back as {@link String}, {@link Long} (whole numbers that fit), {@link BigDecimal} (other
 * numbers), {@link Boolean}, {@code null}, {@link List} and {@link Map}.
 */
public final class StrictJson {

    private static final JsonFactory JSON = JsonFactory.builder().build();

    private final String text;
    private final JsonParser parser;

    private StrictJson(String text, JsonParser parser) {
        this.text = text;
        this.parser = parser;
    }

    /**
     * The one value of {@code text}.
     *
     * @throws IllegalArgumentException naming the problem and where it is
     */
    public static Object parse(String text) {
        try (JsonParser parser = JSON.createParser(text)) {
            StrictJson p = new StrictJson(text, parser);
            if (p.next() == null) {
                throw error("the JSON ends too early", text.length());
            }
            Object v = p.value();
            p.end();
            return v;
        } catch (IOException e) {
            // A parser over a String reads no I/O; nothing but the syntax errors caught below.
            throw new UncheckedIOException(e);
        }
    }

    /** The value at the current token, read through its end. */
    private Object value() throws IOException {
        JsonToken t = parser.currentToken();
        try {
            return switch (t) {
                case START_OBJECT -> object();
                case START_ARRAY -> array();
                // A string's text is read here, when asked for: where an unclosed one fails.
                case VALUE_STRING -> parser.getText();
                case VALUE_TRUE -> Boolean.TRUE;
                case VALUE_FALSE -> Boolean.FALSE;
                case VALUE_NULL -> null;
                case VALUE_NUMBER_INT ->
                        parser.getNumberType() == JsonParser.NumberType.BIG_INTEGER
                                ? new BigDecimal(parser.getText()) : (Object) parser.getLongValue();
                case VALUE_NUMBER_FLOAT -> new BigDecimal(parser.getText());
                // Jackson hands out no other token where a value starts.
                default -> throw error("unexpected " + t, offset());
            };
        } catch (JsonProcessingException e) {
            throw plainWords(e);
        }
    }

    private Map<String, Object> object() throws IOException {
        Map<String, Object> o = new LinkedHashMap<>();
        while (next() == JsonToken.FIELD_NAME) {
            String name = parser.currentName();
            int nameAt = offset();
            next();
            Object v = value();
            if (o.containsKey(name)) {
                throw new IllegalArgumentException("field '" + name + "' is given twice (at "
                        + "character " + (nameAt + 1) + ")");
            }
            o.put(name, v);
        }
        return o;
    }

    private List<Object> array() throws IOException {
        List<Object> a = new ArrayList<>();
        while (next() != JsonToken.END_ARRAY) {
            a.add(value());
        }
        return a;
    }

    /** After the value: nothing but white space. */
    private void end() throws IOException {
        int after = (int) parser.currentLocation().getCharOffset();
        JsonToken more;
        try {
            more = parser.nextToken();
        } catch (JsonProcessingException e) {
            more = JsonToken.NOT_AVAILABLE;
        }
        if (more != null) {
            int at = after;
            while (at < text.length() && " \t\r\n".indexOf(text.charAt(at)) >= 0) {
                at++;
            }
            throw error("more after the end of the JSON value", at);
        }
    }

    /** The next token, with the parser's errors said in plain words. */
    private JsonToken next() throws IOException {
        try {
            return parser.nextToken();
        } catch (JsonProcessingException e) {
            throw plainWords(e);
        }
    }

    /**
     * Jackson's syntax error in plain words, at the character where it is. Its messages are
     * matched by their stable beginnings (pinned by the tests); one not known here is named by
     * the character where it happened.
     */
    private IllegalArgumentException plainWords(JsonProcessingException e) throws IOException {
        int at = (int) e.getLocation().getCharOffset();
        String m = e.getOriginalMessage();
        String name = parser.getParsingContext().inObject() ? parser.currentName() : null;
        String what;
        if (e instanceof JsonEOFException) {
            what = m.contains("closing quote") ? "a string is not closed with '\"'"
                    : m.contains("digit") || m.contains("sign") ? "a number needs a digit here"
                    : afterValue() && name != null
                            ? "expected ',' or '}' after the value of field '" + name + "'"
                    : afterValue() ? "expected ',' or ']' in an array"
                    : "the JSON ends too early";
        } else if (m.startsWith("Unrecognized token") || m.startsWith("Non-standard token")) {
            what = "unexpected word; JSON knows true, false and null";
        } else if (m.contains("was expecting a colon")) {
            what = "expected ':' after field name '" + name + "'";
        } else if (m.contains("double-quote to start field name")) {
            what = "expected a field name in double quotes";
        } else if (m.contains("comma to separate Object entries")) {
            what = "expected ',' or '}' after the value of field '" + name + "'";
        } else if (m.contains("comma to separate Array entries")) {
            what = "expected ',' or ']' in an array";
        } else if (m.startsWith("Unrecognized character escape")) {
            what = "unknown escape '\\" + charAt(at) + "' in a string";
        } else if (m.startsWith("Illegal unquoted character")) {
            what = "a control character inside a string";
        } else if (m.contains("hex-digit")) {
            what = "\\u must be followed by 4 hex digits";
        } else if (m.contains("Leading zeroes")) {
            what = "a number must not start with 0";
        } else if (m.contains("numeric value")) {
            what = "a number needs a digit here";
        } else if (at < text.length()) {
            what = "unexpected character '" + charAt(at) + "'";
        } else {
            what = "the JSON ends too early";
        }
        return error(what, at);
    }

    /** Whether the last token read ends a value (so a ',' or a close may come next). */
    private boolean afterValue() {
        JsonToken t = parser.currentToken();
        return t != null && (t.isScalarValue() || t.isStructEnd());
    }

    private char charAt(int at) {
        return at >= 0 && at < text.length() ? text.charAt(at) : ' ';
    }

    private int offset() {
        return (int) parser.currentTokenLocation().getCharOffset();
    }

    private static IllegalArgumentException error(String what, int at) {
        return new IllegalArgumentException("not valid JSON: " + what + " (at character "
                + (at + 1) + ")");
    }
}

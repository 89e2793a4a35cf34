package io.idmint.server.json;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads a request body as JSON (RFC 8259), strictly: a name given twice in one object is an
 * error, not a silent "last one wins", and every error is said in plain words with the character
 * where it is (counted from 1), never a parser's internals. Values come back as
 * {@link String}, {@link Long} (whole numbers that fit), {@link BigDecimal} (other numbers),
 * {@link Boolean}, {@code null}, {@link List} and {@link Map}.
 */
public final class StrictJson {

    private final String text;
    private int at;

    private StrictJson(String text) {
        this.text = text;
    }

    /**
     * The one value of {@code text}.
     *
     * @throws IllegalArgumentException naming the problem and where it is
     */
    public static Object parse(String text) {
        StrictJson p = new StrictJson(text);
        Object v = p.value();
        p.space();
        if (p.at < text.length()) {
            throw p.error("more after the end of the JSON value");
        }
        return v;
    }

    private Object value() {
        space();
        if (at >= text.length()) {
            throw error("the JSON ends too early");
        }
        char c = text.charAt(at);
        return switch (c) {
            case '{' -> object();
            case '[' -> array();
            case '"' -> string();
            case 't' -> word("true", Boolean.TRUE);
            case 'f' -> word("false", Boolean.FALSE);
            case 'n' -> word("null", null);
            default -> {
                if (c == '-' || (c >= '0' && c <= '9')) {
                    yield number();
                }
                throw error("unexpected character '" + c + "'");
            }
        };
    }

    private Map<String, Object> object() {
        Map<String, Object> o = new LinkedHashMap<>();
        at++;
        space();
        if (peek() == '}') {
            at++;
            return o;
        }
        while (true) {
            space();
            if (peek() != '"') {
                throw error("expected a field name in double quotes");
            }
            int nameAt = at;
            String name = string();
            space();
            expect(':', "expected ':' after field name '" + name + "'");
            Object v = value();
            if (o.containsKey(name)) {
                throw new IllegalArgumentException("field '" + name + "' is given twice (at "
                        + "character " + (nameAt + 1) + ")");
            }
            o.put(name, v);
            space();
            if (peek() == ',') {
                at++;
            } else {
                expect('}', "expected ',' or '}' after the value of field '" + name + "'");
                return o;
            }
        }
    }

    private List<Object> array() {
        List<Object> a = new ArrayList<>();
        at++;
        space();
        if (peek() == ']') {
            at++;
            return a;
        }
        while (true) {
            a.add(value());
            space();
            if (peek() == ',') {
                at++;
            } else {
                expect(']', "expected ',' or ']' in an array");
                return a;
            }
        }
    }

    private String string() {
        StringBuilder sb = new StringBuilder();
        at++;
        while (true) {
            if (at >= text.length()) {
                throw error("a string is not closed with '\"'");
            }
            char c = text.charAt(at++);
            if (c == '"') {
                return sb.toString();
            }
            if (c < 0x20) {
                throw error("a control character inside a string");
            }
            if (c != '\\') {
                sb.append(c);
                continue;
            }
            char e = at < text.length() ? text.charAt(at++) : ' ';
            switch (e) {
                case '"', '\\', '/' -> sb.append(e);
                case 'b' -> sb.append('\b');
                case 'f' -> sb.append('\f');
                case 'n' -> sb.append('\n');
                case 'r' -> sb.append('\r');
                case 't' -> sb.append('\t');
                case 'u' -> {
                    if (at + 4 > text.length()
                            || !text.substring(at, at + 4).matches("\\p{XDigit}{4}")) {
                        throw error("\\u must be followed by 4 hex digits");
                    }
                    sb.append((char) Integer.parseInt(text.substring(at, at + 4), 16));
                    at += 4;
                }
                default -> throw error("unknown escape '\\" + e + "' in a string");
            }
        }
    }

    private Object number() {
        int start = at;
        if (peek() == '-') {
            at++;
        }
        digits();
        boolean whole = true;
        if (peek() == '.') {
            at++;
            digits();
            whole = false;
        }
        if (peek() == 'e' || peek() == 'E') {
            at++;
            if (peek() == '+' || peek() == '-') {
                at++;
            }
            digits();
            whole = false;
        }
        String n = text.substring(start, at);
        if (whole && n.length() <= 18) {
            return Long.parseLong(n);
        }
        return new BigDecimal(n);
    }

    private void digits() {
        int start = at;
        while (at < text.length() && text.charAt(at) >= '0' && text.charAt(at) <= '9') {
            at++;
        }
        if (at == start) {
            throw error("a number needs a digit here");
        }
    }

    private Object word(String word, Object value) {
        if (!text.startsWith(word, at)) {
            throw error("unexpected word; JSON knows true, false and null");
        }
        at += word.length();
        return value;
    }

    private void expect(char c, String otherwise) {
        if (peek() != c) {
            throw error(otherwise);
        }
        at++;
    }

    private char peek() {
        return at < text.length() ? text.charAt(at) : '\0';
    }

    private void space() {
        while (at < text.length() && " \t\r\n".indexOf(text.charAt(at)) >= 0) {
            at++;
        }
    }

    private IllegalArgumentException error(String what) {
        return new IllegalArgumentException("not valid JSON: " + what + " (at character "
                + (at + 1) + ")");
    }
}

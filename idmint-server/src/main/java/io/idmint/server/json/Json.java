package io.idmint.server.json;

/** Writes one flat JSON object, in the order fields are added; no JSON library needed. */
public final class Json {

    private final StringBuilder sb = new StringBuilder("{");

    public Json add(String name, String value) {
        return name(name).append(quote(value));
    }

    public Json add(String name, long value) {
        return name(name).append(value);
    }

    /**
     * Adds a number, or JSON {@code null} when it is not {@code present}: an absent value (no
     * worker held yet, a lease that never runs out) is null, never a sentinel such as -1.
     */
    public Json add(String name, long value, boolean present) {
        return name(name).append(present ? Long.toString(value) : "null");
    }

    /** Adds a value that is already JSON (an array or object). */
    public Json addRaw(String name, String json) {
        return name(name).append(json);
    }

    private Json append(Object o) {
        sb.append(o);
        return this;
    }

    private Json name(String name) {
        if (sb.length() > 1) {
            sb.append(',');
        }
        sb.append(quote(name)).append(':');
        return this;
    }

    @Override
    public String toString() {
        return sb + "}";
    }

    /** A JSON string literal (RFC 8259 §7). */
    public static String quote(String s) {
        StringBuilder out = new StringBuilder(s.length() + 2).append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c < 0x20) {
                        out.append(String.format(java.util.Locale.ROOT, "\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        return out.append('"').toString();
    }
}

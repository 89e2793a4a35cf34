package io.idmint.server.http;

import java.nio.charset.Charset;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * A media type as Spring's MediaType holds it ({@link LeafMedia}): lower-case type and subtype,
 * parameters in order and by name without case, checked as Spring checks them.
 */
final class LeafMediaType {

    /** RFC 2616 token characters, as Spring checks them. */
    private static final String SEPARATORS = "()<>@,;:\\\"/[]?={} \t";

    final String type;
    final String subtype;
    /** Parameter by lower-case name: {name as given, value}. */
    final Map<String, String[]> params;

    private LeafMediaType(String type, String subtype, Map<String, String[]> params) {
        this.type = type;
        this.subtype = subtype;
        this.params = params;
    }

    static LeafMediaType of(String type, String subtype) {
        return new LeafMediaType(type, subtype, Map.of());
    }

    /**
     * One type of an Accept header, as Spring's MimeTypeUtils.parseMimeType reads it.
     *
     * @throws IllegalArgumentException when Spring refuses it
     */
    static LeafMediaType parse(String s) {
        int semi = s.indexOf(';');
        String full = (semi >= 0 ? s.substring(0, semi) : s).trim();
        if (full.equals("*")) {
            full = "*/*"; // java.net.HttpURLConnection's Accept has a bare *
        }
        int slash = full.indexOf('/');
        if (slash <= 0 || slash == full.length() - 1) {
            throw new IllegalArgumentException(s);
        }
        String type = full.substring(0, slash);
        String subtype = full.substring(slash + 1);
        if (type.equals("*") && !subtype.equals("*")) {
            throw new IllegalArgumentException(s);
        }
        token(type);
        token(subtype);
        // As Spring: the parameters by name as given (a repeated one replaced), then each
        // checked into a map without case (one differing in case moves to the end).
        Map<String, String> given = new LinkedHashMap<>();
        int at = semi;
        while (at >= 0 && at < s.length()) {
            int next = at + 1;
            boolean quoted = false;
            while (next < s.length() && (s.charAt(next) != ';' || quoted)) {
                quoted ^= s.charAt(next) == '"';
                next++;
            }
            String p = s.substring(at + 1, next).trim();
            int eq = p.indexOf('=');
            if (eq >= 0) {
                given.put(p.substring(0, eq).trim(), p.substring(eq + 1).trim());
            }
            at = next;
        }
        Map<String, String[]> params = new LinkedHashMap<>();
        for (Map.Entry<String, String> p : given.entrySet()) {
            String name = p.getKey();
            String key = check(name, p.getValue());
            String[] old = params.get(key);
            if (old != null && !old[0].equals(name)) {
                params.remove(key);
            }
            params.put(key, new String[] {name, p.getValue()});
        }
        return new LeafMediaType(type.toLowerCase(Locale.ENGLISH),
                subtype.toLowerCase(Locale.ENGLISH), params);
    }

    /**
     * Spring's checks of a parameter; its lower-case name. (Spring checks charset and q by
     * their lower-case names only, and fails later on {@code Q=x}; both cases are 406 here.)
     */
    private static String check(String name, String value) {
        if (name.isEmpty() || value.isEmpty()) {
            throw new IllegalArgumentException(name + "=" + value);
        }
        token(name);
        String key = name.toLowerCase(Locale.ENGLISH);
        if (key.equals("charset")) {
            Charset.forName(unquote(value));
        } else if (!quoted(value)) {
            token(value);
        }
        if (key.equals("q")) {
            double q = Double.parseDouble(unquote(value));
            if (!(q >= 0 && q <= 1)) {
                throw new IllegalArgumentException("q=" + value);
            }
        }
        return key;
    }

    private static void token(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < 32 || c >= 127 || SEPARATORS.indexOf(c) >= 0) {
                throw new IllegalArgumentException(s);
            }
        }
    }

    private static boolean quoted(String s) {
        return s.length() >= 2 && (s.startsWith("\"") && s.endsWith("\"")
                || s.startsWith("'") && s.endsWith("'"));
    }

    private static String unquote(String s) {
        return quoted(s) ? s.substring(1, s.length() - 1) : s;
    }

    double quality() {
        String[] q = params.get("q");
        return q == null ? 1 : Double.parseDouble(unquote(q[1]));
    }

    boolean wildcardType() {
        return type.equals("*");
    }

    boolean wildcardSubtype() {
        return subtype.equals("*") || subtype.startsWith("*+");
    }

    boolean concrete() {
        return !wildcardType() && !wildcardSubtype();
    }

    /** Spring's MimeType.includes. */
    boolean includes(LeafMediaType other) {
        if (wildcardType()) {
            return true;
        }
        if (!type.equals(other.type)) {
            return false;
        }
        if (subtype.equals(other.subtype)) {
            return true;
        }
        if (!wildcardSubtype()) {
            return false;
        }
        int plus = subtype.lastIndexOf('+');
        if (plus == -1) {
            return true;
        }
        int otherPlus = other.subtype.indexOf('+');
        return otherPlus != -1 && subtype.substring(0, plus).equals("*")
                && subtype.substring(plus + 1).equals(other.subtype.substring(otherPlus + 1));
    }

    /** Spring's MimeType.isCompatibleWith. */
    boolean compatibleWith(LeafMediaType other) {
        if (wildcardType() || other.wildcardType()) {
            return true;
        }
        if (!type.equals(other.type)) {
            return false;
        }
        if (subtype.equals(other.subtype)) {
            return true;
        }
        if (!wildcardSubtype() && !other.wildcardSubtype()) {
            return false;
        }
        int plus = subtype.indexOf('+');
        int otherPlus = other.subtype.indexOf('+');
        if (plus == -1 && otherPlus == -1) {
            return true;
        }
        if (plus == -1 || otherPlus == -1) {
            return false;
        }
        return subtype.substring(plus + 1).equals(other.subtype.substring(otherPlus + 1))
                && (subtype.substring(0, plus).equals("*")
                        || other.subtype.substring(0, otherPlus).equals("*"));
    }

    /** This type with {@code other}'s quality, when it has one (copyQualityValue). */
    LeafMediaType withQualityOf(LeafMediaType other) {
        String[] q = other.params.get("q");
        if (q == null) {
            return this;
        }
        Map<String, String[]> copy = new LinkedHashMap<>(params);
        copy.put("q", new String[] {"q", q[1]});
        return new LeafMediaType(type, subtype, copy);
    }

    LeafMediaType withoutQuality() {
        if (!params.containsKey("q")) {
            return this;
        }
        Map<String, String[]> copy = new LinkedHashMap<>(params);
        copy.remove("q");
        return new LeafMediaType(type, subtype, copy);
    }

    /**
     * The Content-Type header as Tomcat sends it: parameters as {@code ; name=value}, the
     * charset last and unquoted, UTF-8 unless the type names one.
     */
    String render() {
        StringBuilder b = new StringBuilder(type).append('/').append(subtype);
        String charset = "UTF-8";
        for (Map.Entry<String, String[]> p : params.entrySet()) {
            if (p.getKey().equals("charset")) {
                charset = unquote(p.getValue()[1]);
            } else {
                b.append("; ").append(p.getKey()).append('=').append(p.getValue()[1]);
            }
        }
        return b.append(";charset=").append(charset).toString();
    }

    /** Spring's MimeType.equals: names without case, a charset by the charset it names. */
    @Override
    public boolean equals(Object o) {
        if (!(o instanceof LeafMediaType t) || !t.type.equals(type) || !t.subtype.equals(subtype)
                || t.params.size() != params.size()) {
            return false;
        }
        for (Map.Entry<String, String[]> p : params.entrySet()) {
            String[] other = t.params.get(p.getKey());
            if (other == null || !(p.getKey().equals("charset")
                    ? Charset.forName(unquote(p.getValue()[1]))
                            .equals(Charset.forName(unquote(other[1])))
                    : p.getValue()[1].equals(other[1]))) {
                return false;
            }
        }
        return true;
    }

    @Override
    public int hashCode() {
        return type.hashCode() * 31 + subtype.hashCode();
    }
}

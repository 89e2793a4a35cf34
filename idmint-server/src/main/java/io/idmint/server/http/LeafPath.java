package io.idmint.server.http;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Set;

/**
 * A request path as Leaf's server reads it ({@code leaf.compat=strict}, docs/migration.md):
 * Tomcat 8.5 refuses a character outside RFC 3986, a bad or encoded {@code /}, a {@code \} or a
 * NUL (400, no body), drops path parameters ({@code ;…}), decodes, merges slashes and resolves
 * {@code .} and {@code ..}; Spring MVC 4.3 then matches {@code /api/segment/get/{key}} and
 * {@code /api/snowflake/get/{key}}, also with a trailing slash, and by its suffix pattern
 * {@code {key}.*}, which cuts the key at its last dot. Re-enacted from their behaviour and
 * checked against a real Leaf server.
 */
final class LeafPath {

    /** How Leaf answers the path. */
    enum Kind {
        /** Tomcat's 400. */
        REFUSED,
        /** Spring's 404: no mapping matches. */
        NOT_FOUND,
        SEGMENT,
        SNOWFLAKE
    }

    /** Extensions after which Spring adds no {@code Content-Disposition} to a 200. */
    private static final Set<String> SAFE = Set.of("txt", "text", "yml", "properties", "csv",
            "json", "xml", "atom", "rss", "png", "jpe", "jpeg", "jpg", "gif", "wbmp", "bmp");
    private static final String PATH_CHARS = "-._~%!$&'()*+,;=:@/";

    private final Kind kind;
    private final String key;
    private final String extension;
    private final boolean attachment;

    private LeafPath(Kind kind, String key, String extension, boolean attachment) {
        this.kind = kind;
        this.key = key;
        this.extension = extension;
        this.attachment = attachment;
    }

    /**
     * Leaf's reading of a request, or null when neither its path nor Tomcat's normal form of it
     * is under {@code /api/segment/} or {@code /api/snowflake/} (then it is idmint's).
     *
     * @param path the raw path
     * @param query the raw query, or null
     */
    static LeafPath of(String path, String query) {
        if (!under(path) && path.indexOf('%') < 0 && path.indexOf(';') < 0
                && path.indexOf("//") < 0 && path.indexOf("/.") < 0) {
            return null; // nothing Tomcat would change: not Leaf's
        }
        boolean allowed = allowed(path, false) && (query == null || allowed(query, true));
        String stripped = stripParameters(path);
        String decoded = allowed ? decode(stripped) : null;
        String merged = decoded == null ? null : decoded.replaceAll("/{2,}", "/");
        String normal = merged == null ? null : removeDots(merged);
        if (normal == null) {
            return under(path) ? new LeafPath(Kind.REFUSED, null, null, false) : null;
        }
        if (!under(path) && !under(normal)) {
            return null;
        }
        // Spring looks the path up undecoded and with its dots: when Tomcat's form only cut its
        // end off, what is left matches nothing.
        if (!normal.equals(merged) && merged.startsWith(normal)) {
            return new LeafPath(Kind.NOT_FOUND, null, null, false);
        }
        Kind kind = normal.startsWith(Route.LEAF_SEGMENT_PREFIX) ? Kind.SEGMENT
                : normal.startsWith(Route.LEAF_SNOWFLAKE_PREFIX) ? Kind.SNOWFLAKE : null;
        String rest = kind == null ? "" : normal.substring(kind == Kind.SEGMENT
                ? Route.LEAF_SEGMENT_PREFIX.length() : Route.LEAF_SNOWFLAKE_PREFIX.length());
        int slash = rest.indexOf('/');
        String key;
        if (rest.isEmpty() || lineBreak(rest)) {
            key = null; // {key} is a regex (.*), which matches no line break
        } else if (slash < 0) {
            int dot = rest.lastIndexOf('.');
            key = dot < 0 ? rest : rest.substring(0, dot);
        } else {
            key = slash == rest.length() - 1 && slash > 0 ? rest.substring(0, slash) : null;
        }
        if (key == null) {
            return new LeafPath(Kind.NOT_FOUND, null, null, false);
        }
        String extension = extension(normal.equals(merged)
                ? stripped.replaceAll("/{2,}", "/") : normal);
        return new LeafPath(kind, key, extension, attachment(path));
    }

    Kind kind() {
        return kind;
    }

    /** The decoded key Leaf's handler gets; empty for its NoKeyException. */
    String key() {
        return key;
    }

    /** The lower-case extension Spring negotiates the ID's type by, or null. */
    String extension() {
        return extension;
    }

    /** Whether a 200 carries {@code Content-Disposition: inline;filename=f.txt}. */
    boolean attachment() {
        return attachment;
    }

    /** The route metrics label the request with. */
    Route route() {
        return switch (kind) {
            case SEGMENT -> Route.LEAF_SEGMENT;
            case SNOWFLAKE -> Route.LEAF_SNOWFLAKE;
            default -> Route.UNMATCHED;
        };
    }

    private static boolean under(String path) {
        return path.startsWith("/api/segment/") || path.startsWith("/api/snowflake/");
    }

    /** Tomcat's check of the request target: RFC 3986's characters ({@code ?} in a query). */
    private static boolean allowed(String s, boolean query) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (!(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
                    || PATH_CHARS.indexOf(c) >= 0 || query && c == '?')) {
                return false;
            }
        }
        return true;
    }

    /** Drops each path parameter: from a {@code ;} to the next {@code /}. */
    private static String stripParameters(String path) {
        return path.indexOf(';') < 0 ? path : path.replaceAll(";[^/]*", "");
    }

    /** Tomcat's decoding, or null where it answers 400: bad %, %2F, a \ or NUL. */
    private static String decode(String s) {
        if (s.indexOf('%') < 0) {
            return s.indexOf('\\') < 0 ? s : null;
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '%') {
                int hi = i + 2 < s.length() ? Character.digit(s.charAt(i + 1), 16) : -1;
                int lo = hi < 0 ? -1 : Character.digit(s.charAt(i + 2), 16);
                if (lo < 0 || hi * 16 + lo == '/') {
                    return null;
                }
                out.write(hi * 16 + lo);
                i += 2;
            } else {
                out.write(c);
            }
        }
        String d = out.toString(StandardCharsets.UTF_8);
        return d.indexOf('\\') < 0 && d.indexOf('\0') < 0 ? d : null;
    }

    /** Tomcat's {@code .} and {@code ..} resolution, or null past the root (400). */
    private static String removeDots(String p) {
        if (!p.startsWith("/")) {
            return null;
        }
        if (p.endsWith("/.") || p.endsWith("/..")) {
            p += "/";
        }
        for (int i; (i = p.indexOf("/./")) >= 0;) {
            p = p.substring(0, i) + p.substring(i + 2);
        }
        for (int i; (i = p.indexOf("/../")) >= 0;) {
            if (i == 0) {
                return null;
            }
            p = p.substring(0, p.lastIndexOf('/', i - 1)) + p.substring(i + 3);
        }
        return p;
    }

    private static boolean lineBreak(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '\n' || c == '\r' || c == '\u0085' || c == '\u2028' || c == '\u2029') {
                return true;
            }
        }
        return false;
    }

    /** Spring's extension of a lookup path: after the last dot of its last segment, not first. */
    private static String extension(String path) {
        int begin = path.lastIndexOf('/') + 1;
        int end = path.indexOf(';', begin);
        end = end < 0 ? path.length() : end;
        int dot = path.lastIndexOf('.', end);
        String ext = dot > begin && dot < end ? path.substring(dot + 1, end) : "";
        return ext.isBlank() ? null : ext.toLowerCase(Locale.ENGLISH);
    }

    /**
     * Whether Spring's guard against reflected file downloads marks a 200: the decoded last
     * segment, or its path parameters, end in an extension Spring does not know as safe.
     */
    private static boolean attachment(String path) {
        String name = path.substring(path.lastIndexOf('/') + 1);
        int semi = name.indexOf(';');
        String params = semi < 0 ? "" : name.substring(semi);
        name = semi < 0 ? name : name.substring(0, semi);
        return unsafe(decode(name)) || unsafe(decode(params));
    }

    private static boolean unsafe(String name) {
        int dot = name == null ? -1 : name.lastIndexOf('.');
        String ext = dot < 0 ? "" : name.substring(dot + 1);
        return !ext.isBlank() && !SAFE.contains(ext.toLowerCase(Locale.ENGLISH));
    }
}

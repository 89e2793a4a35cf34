package io.idmint.server.http;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The content types Leaf's server negotiates ({@code leaf.compat=strict}, docs/migration.md):
 * Spring MVC 4.3's rules, as Spring Boot 1.5 configures them for Leaf's classpath, re-enacted
 * and checked against a real Leaf server. The ID is a String written by Spring's string
 * converter (any type, {@code text/plain} first) or by Jackson ({@code application/json},
 * {@code application/*+json}); {@code .json} and {@code .xml} on the path name the type whatever
 * {@code Accept} says. An error is Boot's HTML page when {@code text/html} ranks before
 * {@code *}{@code /*} in {@code Accept}, else its JSON in a JSON type {@code Accept} allows, else
 * 406. Accept's types are ranked as Spring ranks them: more specific first, then by quality
 * ({@code *}{@code /*;q=1} after {@code text/html;q=0.1}); a malformed Accept is 406.
 */
final class LeafMedia {

    /** The content type of Boot's HTML error page. */
    static final String HTML = "text/html;charset=UTF-8";
    /** What Spring answers when Accept asks for nothing in particular. */
    static final String TEXT = "text/plain;charset=UTF-8";

    private static final LeafMediaType ALL = LeafMediaType.of("*", "*");
    private static final LeafMediaType APPLICATION = LeafMediaType.of("application", "*");
    private static final LeafMediaType TEXT_HTML = LeafMediaType.of("text", "html");
    /** What the ID can be written as: the string converter's types, then Jackson's. */
    private static final List<LeafMediaType> ID = List.of(LeafMediaType.of("text", "plain"), ALL,
            LeafMediaType.of("application", "json"), LeafMediaType.of("application", "*+json"));
    /** What Boot's error JSON can be written as: Jackson's types. */
    private static final List<LeafMediaType> ERROR = ID.subList(2, 4);
    /**
     * Spring's order of Accept's types and of the types both sides accept
     * (MediaType.sortBySpecificityAndQuality): specificity, then quality.
     */
    private static final Comparator<LeafMediaType> RANK =
            ((Comparator<LeafMediaType>) LeafMedia::specificity).thenComparing(LeafMedia::quality);

    private LeafMedia() {
    }

    /**
     * The content type of a 200 carrying the ID, or null for 406 (a malformed Accept, or one
     * naming only types no converter writes, such as {@code application/*+json}).
     *
     * @param extension the lower-case extension of the path's last segment, or null
     * @param accept the request's Accept headers
     */
    static String forId(String extension, List<String> accept) {
        List<LeafMediaType> requested;
        if ("json".equals(extension) || "xml".equals(extension)) {
            requested = List.of(LeafMediaType.of("application", extension));
        } else if (accept.isEmpty() || accept.size() == 1 && "*/*".equals(accept.get(0))) {
            return TEXT;
        } else {
            requested = accepted(accept);
            if (requested == null) {
                return null;
            }
        }
        LeafMediaType t = negotiate(requested, ID);
        if (t == null) {
            return null;
        }
        // The string converter writes application/octet-stream as its own text/plain.
        return t.equals(ALL) || t.equals(APPLICATION) ? TEXT : t.render();
    }

    /**
     * How an error is answered: {@link #HTML} (compare by identity) for Boot's HTML page, else
     * the content type of its JSON, or null for 406.
     */
    static String forError(List<String> accept) {
        List<LeafMediaType> accepted = accepted(accept);
        if (accepted == null) {
            return null;
        }
        // Boot's two error handlers, text/html and any type, ranked by the first accepted type
        // that tells them apart.
        for (LeafMediaType a : accepted) {
            boolean html = a.type.equals("text") && a.subtype.equals("html");
            boolean all = a.wildcardType();
            if (html != all) {
                if (html) {
                    return HTML;
                }
                break;
            }
            if (a.includes(TEXT_HTML)) {
                return HTML;
            }
        }
        LeafMediaType t = negotiate(accepted, ERROR);
        return t == null || !t.concrete() ? null : t.render();
    }

    /** Accept's types in Spring's order ({@code *}{@code /*} when none), or null if malformed. */
    private static List<LeafMediaType> accepted(List<String> headers) {
        List<LeafMediaType> types = new ArrayList<>();
        try {
            for (String header : headers) {
                for (String token : header.split(",")) {
                    token = token.trim();
                    if (!token.isEmpty()) {
                        types.add(LeafMediaType.parse(token));
                    }
                }
            }
        } catch (IllegalArgumentException e) {
            return null;
        }
        if (types.isEmpty()) {
            return List.of(ALL);
        }
        types.sort(RANK);
        return types;
    }

    /**
     * The type Spring writes: every requested type paired with every type the converters
     * write, the more specific of each compatible pair kept, ranked; the first concrete one,
     * or {@code *}{@code /*} or {@code application/*} (octet-stream), or null.
     */
    private static LeafMediaType negotiate(List<LeafMediaType> requested,
            List<LeafMediaType> producible) {
        Set<LeafMediaType> compatible = new LinkedHashSet<>();
        for (LeafMediaType r : requested) {
            for (LeafMediaType p : producible) {
                if (r.compatibleWith(p)) {
                    LeafMediaType withQuality = p.withQualityOf(r);
                    compatible.add(specificity(r, withQuality) <= 0 ? r : withQuality);
                }
            }
        }
        List<LeafMediaType> ranked = new ArrayList<>(compatible);
        ranked.sort(RANK);
        for (LeafMediaType t : ranked) {
            if (t.concrete()) {
                return t.withoutQuality();
            }
            if (t.equals(ALL) || t.equals(APPLICATION)) {
                return t;
            }
        }
        return null;
    }

    /** Spring's MediaType.SPECIFICITY_COMPARATOR: negative when {@code a} is more specific. */
    private static int specificity(LeafMediaType a, LeafMediaType b) {
        int c = kind(a, b);
        if (c != 2) {
            return c;
        }
        c = Double.compare(b.quality(), a.quality());
        return c != 0 ? c : Integer.compare(b.params.size(), a.params.size());
    }

    /** Spring's MediaType.QUALITY_VALUE_COMPARATOR. */
    private static int quality(LeafMediaType a, LeafMediaType b) {
        int c = Double.compare(b.quality(), a.quality());
        if (c != 0) {
            return c;
        }
        c = kind(a, b);
        return c != 2 ? c : Integer.compare(b.params.size(), a.params.size());
    }

    /** Wildcards after concrete types; 0 for unrelated types; 2 for the same type. */
    private static int kind(LeafMediaType a, LeafMediaType b) {
        if (a.wildcardType() != b.wildcardType()) {
            return a.wildcardType() ? 1 : -1;
        }
        if (!a.type.equals(b.type)) {
            return 0;
        }
        if (a.wildcardSubtype() != b.wildcardSubtype()) {
            return a.wildcardSubtype() ? 1 : -1;
        }
        return a.subtype.equals(b.subtype) ? 2 : 0;
    }
}

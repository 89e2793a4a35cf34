package io.idmint.spi.support;

/**
 * The rules for the names idmint stores, written once. Registry namespaces and datacenter names
 * are 1 to 64 of {@code A-Z a-z 0-9 . _ -} (a datacenter name may also be empty, for none).
 * Segment tags are wider, to take Leaf's {@code biz_tag}s such as {@code order:2024}: 1 to 128
 * printable ASCII characters, refusing only what is unsafe in a URL path segment (docs/segments.md,
 * "Tags"). Every backend holds every valid tag byte for byte, or refuses it naming its own limit.
 */
public final class Names {

    /** The rule in words, for error messages. */
    public static final String RULE = "1 to 64 of A-Z a-z 0-9 . _ -";

    /** The longest segment tag, as Leaf's {@code leaf_alloc.biz_tag varchar(128)} holds. */
    public static final int MAX_TAG = 128;

    /** The segment tag rule in words, for error messages. */
    public static final String TAG_RULE = "1 to " + MAX_TAG + " printable ASCII characters "
            + "(letters, digits and punctuation such as : . _ - @ +), none of / \\ ? # % and "
            + "not . or .. (a tag must be one URL path segment as it is)";

    private Names() {
    }

    /**
     * Whether {@code name} is 1 to 64 of {@code A-Z a-z 0-9 . _ -} (the regular expression
     * {@code [A-Za-z0-9._-]{1,64}}); false for null. A plain loop: it runs on every store call,
     * and a model checker can step through it.
     */
    public static boolean isValid(String name) {
        if (name == null || name.isEmpty() || name.length() > 64) {
            return false;
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            boolean ok = c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9'
                    || c == '.' || c == '_' || c == '-';
            if (!ok) {
                return false;
            }
        }
        return true;
    }

    /**
     * Whether {@code tag} is a valid segment tag: 1 to {@value #MAX_TAG} characters from
     * {@code '!'} to {@code '~'} (printable ASCII, so no whitespace, control or non-ASCII
     * character), none of {@code / \\ ? #} (they end or split a path segment; a backslash is
     * a slash to browsers) and {@code %} (it would be decoded twice), and not {@code .} or
     * {@code ..} (clients resolve those away). False for null. A plain loop: HTTP checks a tag
     * on every request.
     */
    public static boolean isValidTag(String tag) {
        if (tag == null || tag.isEmpty() || tag.length() > MAX_TAG || tag.equals(".")
                || tag.equals("..")) {
            return false;
        }
        for (int i = 0; i < tag.length(); i++) {
            char c = tag.charAt(i);
            if (c < '!' || c > '~' || c == '/' || c == '\\' || c == '?' || c == '#'
                    || c == '%') {
                return false;
            }
        }
        return true;
    }

    /**
     * Returns {@code tag} when it is a valid segment tag name ({@link #isValidTag}).
     *
     * @throws IllegalArgumentException naming the tag and the rule otherwise
     */
    public static String requireTag(String tag) {
        if (!isValidTag(tag)) {
            throw new IllegalArgumentException("segment tag '" + tag + "' must be " + TAG_RULE);
        }
        return tag;
    }

    /**
     * Returns {@code namespace} when it is a valid namespace name.
     *
     * @throws IllegalArgumentException naming the namespace otherwise
     */
    public static String requireNamespace(String namespace) {
        if (!isValid(namespace)) {
            throw new IllegalArgumentException("namespace '" + namespace + "' must be " + RULE);
        }
        return namespace;
    }

    /**
     * Returns {@code name} when it is a valid datacenter name or empty (none).
     *
     * @throws IllegalArgumentException naming it otherwise, under {@code key}
     */
    public static String requireDatacenterName(String name, String key) {
        if (name == null || !name.isEmpty() && !isValid(name)) {
            throw new IllegalArgumentException(key + " '" + name + "' must be 0 to 64 of "
                    + "A-Z a-z 0-9 . _ -");
        }
        return name;
    }
}

package io.idmint.spi;

/**
 * The one rule for the names idmint stores: segment tags, registry namespaces and datacenter
 * names are 1 to 64 of {@code A-Z a-z 0-9 . _ -} (a datacenter name may also be empty, for
 * none). Every backend keys its storage by such names, so a name one store accepts, every store
 * accepts.
 */
public final class Names {

    /** The rule in words, for error messages. */
    public static final String RULE = "1 to 64 of A-Z a-z 0-9 . _ -";

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
     * Returns {@code tag} when it is a valid segment tag name.
     *
     * @throws IllegalArgumentException naming the tag otherwise
     */
    public static String requireTag(String tag) {
        if (!isValid(tag)) {
            throw new IllegalArgumentException("segment tag '" + tag + "' must be " + RULE);
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

package io.idmint.server.api;

import io.idmint.spi.support.Names;

/**
 * A segment tag whose name was checked ({@link Names#requireTag}): made once where a request
 * enters, so nothing below checks it again.
 */
public final class Tag {

    private final String name;

    private Tag(String name) {
        this.name = name;
    }

    /**
     * The tag named {@code name}.
     *
     * @throws IllegalArgumentException naming the tag and {@link Names#TAG_RULE}
     */
    static Tag of(String name) {
        return new Tag(Names.requireTag(name));
    }

    /** The tag named {@code name}, or null when that is no valid tag name. */
    public static Tag orNull(String name) {
        return name != null && Names.isValidTag(name) ? new Tag(name) : null;
    }

    public String name() {
        return name;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Tag t && t.name.equals(name);
    }

    @Override
    public int hashCode() {
        return name.hashCode();
    }

    @Override
    public String toString() {
        return name;
    }
}

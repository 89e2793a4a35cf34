package io.idmint.spi;

/**
 * A tag held by a {@link RangeStore}: the first value its next allocation will start at, and the
 * step it was created with.
 */
public record TagInfo(String tag, long next, long step) {

    public TagInfo {
        java.util.Objects.requireNonNull(tag, "tag");
    }
}

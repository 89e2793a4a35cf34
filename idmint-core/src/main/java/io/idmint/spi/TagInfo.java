package io.idmint.spi;

/** A tag held by a {@link RangeStore} and the first value its next allocation will start at. */
public record TagInfo(String tag, long next) {

    public TagInfo {
        java.util.Objects.requireNonNull(tag, "tag");
    }
}

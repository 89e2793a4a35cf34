package io.idmint.spi;

/**
 * The tag does not exist in the range store (an HTTP server answers 404). Thrown by
 * {@link RangeStore#allocate} and by a segment generator without auto-creation.
 */
public final class UnknownTagException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    private final String tag;

    public UnknownTagException(String tag, String message) {
        super(message);
        this.tag = tag;
    }

    /** The tag that was asked for. */
    public String tag() {
        return tag;
    }
}

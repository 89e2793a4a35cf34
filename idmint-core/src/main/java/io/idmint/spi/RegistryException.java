package io.idmint.spi;

/** A registry operation did not succeed; {@link #kind()} says what the core should do. */
public final class RegistryException extends Exception {

    private static final long serialVersionUID = 1L;

    /** What went wrong, by what the caller must do about it. */
    public enum Kind {
        /** The store did not answer, or the outcome is unknown. Keep the old limit and retry. */
        UNAVAILABLE,
        /** The fencing token changed: someone else owns the worker now. Stop issuing at once. */
        LEASE_LOST,
        /** Every worker ID is held. Stay NOT READY and retry; never share or wrap an ID. */
        POOL_FULL,
        /** The registry holds another layout or datacenter setting. Refuse to start. */
        CONFLICT,
        /** Stored state is unreadable. Refuse to start until an operator looks. */
        CORRUPT
    }

    private final Kind kind;

    public RegistryException(Kind kind, String message) {
        super(message);
        this.kind = kind;
    }

    public RegistryException(Kind kind, String message, Throwable cause) {
        super(message, cause);
        this.kind = kind;
    }

    public Kind kind() {
        return kind;
    }

    /** Whether retrying later may succeed. */
    public boolean retryable() {
        return kind == Kind.UNAVAILABLE || kind == Kind.POOL_FULL;
    }
}

package io.idmint.server.api;

/**
 * How many IDs one call asks for, checked against the call's limit where the request enters
 * ({@link RequestPipeline#count}), so nothing below checks it again.
 */
public final class Count {

    /** One ID: an absent count, or a call that takes one. */
    public static final Count ONE = new Count(1);

    private final long value;

    private Count(long value) {
        this.value = value;
    }

    /**
     * {@code n}, from 1 to {@code max}.
     *
     * @throws IllegalArgumentException naming the value and the range
     */
    static Count of(long n, long max) {
        if (n < 1 || n > max) {
            throw outOfRange(Long.toString(n), max);
        }
        return new Count(n);
    }

    /** The error for a count outside 1..max, as the caller wrote it. */
    static IllegalArgumentException outOfRange(String count, long max) {
        return new IllegalArgumentException("count must be from 1 to " + max + ", got " + count);
    }

    public long value() {
        return value;
    }

    @Override
    public String toString() {
        return Long.toString(value);
    }
}

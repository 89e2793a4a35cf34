package io.idmint.spi.support;

import io.idmint.spi.RangeStore;
import io.idmint.spi.RegistryException;

/**
 * What a {@link RangeStore} keeps per segment tag: the first value of its next allocation and
 * the step it was created with; and the rules every store applies to it, written once here.
 * Stores that keep it as text (etcd, ZooKeeper) write {@link #text()}, {@code "<next> <step>"}
 * in decimal, and read it back with {@link #parse}.
 *
 * @param next the first value the tag's next allocation starts at, {@code >= 0}
 * @param step the size of a {@link RangeStore#TAG_STEP} allocation, 1 to
 *     {@link RangeStore#MAX_STEP}
 */
public record TagValue(long next, long step) {

    /**
     * @throws IllegalArgumentException when {@code next} is negative or {@code step} is not
     *     between 1 and {@link RangeStore#MAX_STEP}
     */
    public TagValue {
        if (next < 0) {
            throw new IllegalArgumentException("segment start must be >= 0, got " + next);
        }
        if (step < 1 || step > RangeStore.MAX_STEP) {
            throw new IllegalArgumentException("segment step must be between 1 and 2^40, got "
                    + step);
        }
    }

    /**
     * The checks of {@link RangeStore#create}: a valid tag name, a start of at least 0 and a step
     * of 1 to {@link RangeStore#MAX_STEP}. Returns the tag's first value.
     *
     * @throws IllegalArgumentException naming the bad argument
     */
    public static TagValue created(String tag, long start, long step) {
        Names.requireTag(tag);
        return new TagValue(start, step);
    }

    /**
     * The checks of {@link RangeStore#allocate}: a valid tag name and a size of at least 0.
     *
     * @throws IllegalArgumentException naming the bad argument
     */
    public static void checkAllocation(String tag, long size) {
        Names.requireTag(tag);
        if (size < 0) {
            throw new IllegalArgumentException("range size must not be negative, got " + size);
        }
    }

    /**
     * The checks of {@link RangeStore#define}: a valid tag name as the serial's name, and a
     * definition of 1 to {@link RangeStore#MAX_DEFINITION} characters of printable ASCII and
     * newlines.
     *
     * @throws IllegalArgumentException naming the bad argument
     */
    public static void checkDefinition(String name, String definition) {
        Names.requireTag(name);
        if (definition == null || definition.isEmpty()
                || definition.length() > RangeStore.MAX_DEFINITION) {
            throw new IllegalArgumentException("the definition of serial '" + name + "' must "
                    + "be 1 to " + RangeStore.MAX_DEFINITION + " characters, got "
                    + (definition == null ? "none" : definition.length()));
        }
        for (int i = 0; i < definition.length(); i++) {
            char c = definition.charAt(i);
            if (c != '\n' && (c < 0x20 || c > 0x7e)) {
                throw new IllegalArgumentException("the definition of serial '" + name + "' "
                        + "has character " + (int) c + " at " + i + "; only printable ASCII "
                        + "and newlines are kept");
            }
        }
    }

    /**
     * After a define that found serial {@code name} defined already: nothing when the stored
     * definition is the same text, else {@link RegistryException.Kind#CONFLICT} naming it.
     *
     * @param where the store and its key, for the message, such as {@code "etcd key /x/y"}
     */
    public static void requireSameDefinition(String name, String definition, String stored,
            String where) throws RegistryException {
        if (!definition.equals(stored)) {
            throw new RegistryException(RegistryException.Kind.CONFLICT, "serial '" + name
                    + "' is defined already (" + where + "), as: "
                    + String.valueOf(stored).replace('\n', ' ').strip());
        }
    }

    /**
     * The value after an allocation of {@code size} ({@link RangeStore#TAG_STEP} for the step);
     * the allocation is {@code [next(), after.next())}.
     *
     * @throws RegistryException {@link RegistryException.Kind#CORRUPT} when the tag's values
     *     would overflow
     */
    public TagValue allocate(String tag, long size) throws RegistryException {
        long n = size == RangeStore.TAG_STEP ? step : size;
        if (next > Long.MAX_VALUE - n) {
            throw new RegistryException(RegistryException.Kind.CORRUPT, "segment tag '" + tag
                    + "' at " + next + " cannot take " + n + " more values without overflow");
        }
        return new TagValue(next + n, step);
    }

    /** {@code "<next> <step>"}, decimal. */
    public String text() {
        return next + " " + step;
    }

    /**
     * Reads {@link #text()} back.
     *
     * @param where the stored place, for the message: e.g. {@code "etcd key /idmint/…"}
     * @throws RegistryException {@link RegistryException.Kind#CORRUPT} when the text is not a
     *     valid value
     */
    public static TagValue parse(String text, String where) throws RegistryException {
        String[] parts = text.split(" ", -1);
        if (parts.length == 2) {
            try {
                return new TagValue(Long.parseLong(parts[0]), Long.parseLong(parts[1]));
            } catch (IllegalArgumentException e) { // NumberFormatException too
                // reported below
            }
        }
        throw new RegistryException(RegistryException.Kind.CORRUPT, where + " holds '" + text
                + "', not a segment tag's '<next> <step>'");
    }
}

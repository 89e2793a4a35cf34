package io.idmint.spi;

import java.util.List;

/**
 * Where segment ranges are leased. One primitive, {@link #allocate}: a backend makes it atomic
 * (a JDBC increment and read in one transaction, Redis {@code INCRBY}, a compare-and-set on an
 * etcd revision or ZooKeeper version), and the core's segment generator derives buffering,
 * prefetch and step adaptation from it. Implementations are thread-safe; several clients of one
 * store, in any number of processes, share the tags.
 *
 * <p>A tag's values only go up: an allocation that may have been committed is never handed out
 * again, even when its caller did not hear the answer (IDs are unique, not gapless).
 */
public interface RangeStore extends AutoCloseable {

    /** The {@code size} that asks {@link #allocate} for the tag's own step, as created. */
    long TAG_STEP = 0;

    /**
     * Atomically takes the next {@code size} values of {@code tag}: the result starts where the
     * tag's previous allocation ended (or at its creation start) and is disjoint from every other
     * allocation of the tag, by any client.
     *
     * @param size how many values to take, or {@link #TAG_STEP} for the step stored with the tag
     *     (as Leaf's first allocation takes the {@code step} column)
     * @throws UnknownTagException when the tag does not exist (nothing is created implicitly)
     * @throws IllegalArgumentException when the tag name is not valid or {@code size} is
     *     negative: the checks of {@code support.TagValue#checkAllocation}
     * @throws RegistryException {@link RegistryException.Kind#UNAVAILABLE} when the store did not
     *     answer or the outcome is unknown: the values may or may not be taken, so they are lost;
     *     {@link RegistryException.Kind#CORRUPT} when the stored value is unreadable, the tag's
     *     values would overflow, or the store is set up so that it could forget an allocation
     *     (e.g. a Redis without an fsynced append-only file): only an operator can fix these
     */
    Range allocate(String tag, long size) throws RegistryException;

    /**
     * Creates {@code tag} so that its first allocation starts at {@code start}, and stores
     * {@code step}, the size {@link #TAG_STEP} allocations take.
     *
     * @throws IllegalArgumentException when the tag name is not valid, {@code start} is negative
     *     or {@code step} is not between 1 and {@link #MAX_STEP}: the checks of
     *     {@code support.TagValue#created}
     * @throws RegistryException {@link RegistryException.Kind#CONFLICT} when the tag exists
     *     already; {@link RegistryException.Kind#UNAVAILABLE} when the store did not answer
     */
    void create(String tag, long start, long step) throws RegistryException;

    /** The largest step a tag may be created with, 2^40. */
    long MAX_STEP = 1L << 40;

    /** Every tag with the start of its next allocation and its step, sorted by tag. */
    List<TagInfo> tags() throws RegistryException;

    /** The longest serial definition a store keeps, in characters. */
    int MAX_DEFINITION = 1000;

    /**
     * Stores the definition of serial {@code name} (its text form, {@code
     * io.idmint.segment.SerialDefinition#text()}), once: defining it again with the same text
     * changes nothing; with another text it is a {@link RegistryException.Kind#CONFLICT} naming
     * the stored one, which stays. A serial's definition lives beside its per-period tags, so
     * every node reads the same one.
     *
     * @throws IllegalArgumentException when {@code name} is not a valid tag name, or the text is
     *     empty, longer than {@link #MAX_DEFINITION} or holds a character outside printable
     *     ASCII and newlines
     * @throws UnsupportedOperationException when the store keeps no definitions, saying why
     * @throws RegistryException CONFLICT (another definition is stored), or UNAVAILABLE
     */
    default void define(String name, String definition) throws RegistryException {
        throw new UnsupportedOperationException(getClass().getName() + " keeps no serial "
                + "definitions");
    }

    /**
     * The stored definition of serial {@code name}, or null when there is none.
     *
     * @throws UnsupportedOperationException when the store keeps no definitions, saying why
     */
    default String definition(String name) throws RegistryException {
        throw new UnsupportedOperationException(getClass().getName() + " keeps no serial "
                + "definitions");
    }

    /**
     * Every stored serial definition by name, sorted by name.
     *
     * @throws UnsupportedOperationException when the store keeps no definitions, saying why
     */
    default java.util.SortedMap<String, String> definitions() throws RegistryException {
        throw new UnsupportedOperationException(getClass().getName() + " keeps no serial "
                + "definitions");
    }

    /** Frees client resources; the stored tags stay. */
    @Override
    void close();
}

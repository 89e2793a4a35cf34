package io.idmint.testkit;

import io.idmint.spi.Range;
import io.idmint.spi.RangeStore;
import io.idmint.spi.RegistryException;
import io.idmint.spi.RegistryException.Kind;
import io.idmint.spi.TagInfo;
import io.idmint.spi.UnknownTagException;
import io.idmint.spi.support.TagValue;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A range store in memory, for unit tests: {@link #setAvailable(boolean)} simulates an outage,
 * and every allocation is recorded. Several generators sharing one instance behave like nodes
 * sharing a store.
 */
public final class InMemoryRangeStore implements RangeStore {

    private final Map<String, Long> next = new TreeMap<>();
    private final Map<String, Long> steps = new HashMap<>();
    private final Map<String, List<Range>> allocated = new HashMap<>();
    private final java.util.SortedMap<String, String> definitions = new TreeMap<>();
    private boolean available = true;
    private long allocations;
    private long calls;

    /** Makes every call fail with {@link Kind#UNAVAILABLE} while false. */
    public synchronized void setAvailable(boolean available) {
        this.available = available;
    }

    /** Successful allocations over all tags. */
    public synchronized long allocations() {
        return allocations;
    }

    /** Calls to {@link #allocate}, failed ones included. */
    public synchronized long allocateCalls() {
        return calls;
    }

    /** The ranges handed out for {@code tag}, in order. */
    public synchronized List<Range> ranges(String tag) {
        return List.copyOf(allocated.getOrDefault(tag, List.of()));
    }

    @Override
    public synchronized Range allocate(String tag, long size) throws RegistryException {
        calls++;
        TagValue.checkAllocation(tag, size);
        checkAvailable();
        Long start = next.get(tag);
        if (start == null) {
            throw new UnknownTagException(tag, "segment tag '" + tag + "' does not exist");
        }
        if (size == TAG_STEP) {
            size = steps.get(tag);
        }
        if (start > Long.MAX_VALUE - size) {
            throw new RegistryException(Kind.CORRUPT, "segment tag '" + tag + "' would overflow");
        }
        Range r = new Range(start, start + size);
        next.put(tag, r.end());
        allocated.computeIfAbsent(tag, t -> new ArrayList<>()).add(r);
        allocations++;
        return r;
    }

    @Override
    public synchronized void create(String tag, long start, long step) throws RegistryException {
        TagValue.created(tag, start, step);
        checkAvailable();
        if (next.putIfAbsent(tag, start) != null) {
            throw new RegistryException(Kind.CONFLICT, "segment tag '" + tag + "' exists already");
        }
        steps.put(tag, step);
    }

    @Override
    public synchronized List<TagInfo> tags() throws RegistryException {
        checkAvailable();
        List<TagInfo> out = new ArrayList<>();
        next.forEach((tag, n) -> out.add(new TagInfo(tag, n, steps.get(tag))));
        return out;
    }

    @Override
    public synchronized void define(String name, String definition) throws RegistryException {
        TagValue.checkDefinition(name, definition);
        checkAvailable();
        String stored = definitions.putIfAbsent(name, definition);
        if (stored != null) {
            TagValue.requireSameDefinition(name, definition, stored, "in memory");
        }
    }

    @Override
    public synchronized String definition(String name) throws RegistryException {
        checkAvailable();
        return definitions.get(name);
    }

    @Override
    public synchronized java.util.SortedMap<String, String> definitions()
            throws RegistryException {
        checkAvailable();
        return new TreeMap<>(definitions);
    }

    @Override
    public void close() {
    }

    private void checkAvailable() throws RegistryException {
        if (!available) {
            throw new RegistryException(Kind.UNAVAILABLE,
                    "in-memory range store is set unavailable");
        }
    }
}

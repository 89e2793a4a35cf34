package io.idmint.testkit;

import io.idmint.spi.Range;
import io.idmint.spi.RangeStore;
import io.idmint.spi.RegistryException;
import io.idmint.spi.TagInfo;
import java.util.List;

/**
 * A range store that passes every call to another: a test overrides the call it watches or
 * makes misbehave (an allocation that fails once, records its ranges, …) and keeps the rest real.
 */
public class ForwardingRangeStore implements RangeStore {

    /** The store every call not overridden goes to. */
    protected final RangeStore delegate;

    public ForwardingRangeStore(RangeStore delegate) {
        this.delegate = delegate;
    }

    @Override
    public Range allocate(String tag, long size) throws RegistryException {
        return delegate.allocate(tag, size);
    }

    @Override
    public void create(String tag, long start, long step) throws RegistryException {
        delegate.create(tag, start, step);
    }

    @Override
    public List<TagInfo> tags() throws RegistryException {
        return delegate.tags();
    }

    @Override
    public void define(String name, String definition) throws RegistryException {
        delegate.define(name, definition);
    }

    @Override
    public String definition(String name) throws RegistryException {
        return delegate.definition(name);
    }

    @Override
    public java.util.SortedMap<String, String> definitions() throws RegistryException {
        return delegate.definitions();
    }

    @Override
    public void close() {
        delegate.close();
    }
}

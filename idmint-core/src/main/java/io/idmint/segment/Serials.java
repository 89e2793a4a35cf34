package io.idmint.segment;

import io.idmint.TimeSource;
import io.idmint.spi.RangeStore;
import io.idmint.spi.RegistryException;
import io.idmint.spi.UnknownTagException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Business serial numbers over a segment store, beside {@link Segments}: {@code
 * INV-20261128-000042}, a counter per period written in a template ({@link
 * SerialDefinition}). A serial is defined once in the store, so every node reads the same
 * definition, and minted by each node from ranges of its period's counter ({@link Serial}).
 *
 * <pre>{@code
 * Serials serials = Serials.newBuilder().store(store).build();
 * serials.define(SerialDefinition.newBuilder("invoice").period(SerialPeriod.DAY)
 *         .zone(ZoneId.of("Europe/Berlin")).template("INV-{date:yyyyMMdd}-{counter:6}").build());
 * String number = serials.serial("invoice").next();     // INV-20261128-000001
 * }</pre>
 *
 * <p>Serials need a store that keeps definitions: idmint's SQL table, Redis, etcd, ZooKeeper,
 * H2; Leaf's {@code leaf_alloc} table is refused, saying why. Thread-safe.
 */
public final class Serials {

    private final RangeStore store;
    private final TimeSource time;
    private final java.util.function.BiFunction<String, Integer,
            java.util.function.LongFunction<String>> codes;
    private final Map<String, Serial> serials = new ConcurrentHashMap<>();

    private Serials(Builder b) {
        this.store = b.store;
        this.time = b.time;
        this.codes = b.codes;
    }

    /** A serial of {@code definition}, with its code when its template writes one. */
    private Serial make(SerialDefinition definition) {
        java.util.function.LongFunction<String> code = null;
        if (definition.codeBits().isPresent()) {
            if (codes == null) {
                throw new IllegalStateException("serial '" + definition.name() + "' writes "
                        + "{code:" + definition.codeBits().getAsInt() + "}, the public code of "
                        + "its counter: give Serials the codes (Serials.Builder.codes; on the "
                        + "server and in the starter, codes.key or codes.key-file)");
            }
            code = codes.apply(definition.name(), definition.codeBits().getAsInt());
        }
        return new Serial(definition, store, time, code);
    }

    public static Builder newBuilder() {
        return new Builder();
    }

    /**
     * Stores {@code definition}: a new serial, or the same definition again (no change).
     *
     * @throws RegistryException CONFLICT when the store holds another definition under the name
     *     (a serial's definition never changes: define a new name), or UNAVAILABLE
     * @throws UnsupportedOperationException when the store keeps no definitions, saying why
     */
    public Serial define(SerialDefinition definition) throws RegistryException {
        Serial made = make(definition);
        store.define(definition.name(), definition.text());
        Serial had = serials.putIfAbsent(definition.name(), made);
        return had != null ? had : made;
    }

    /**
     * The serial {@code name}, as the store defines it (read once, then kept: definitions never
     * change).
     *
     * @throws UnknownTagException when the store has no serial of that name
     * @throws RegistryException UNAVAILABLE when the store did not answer
     * @throws IllegalArgumentException when the stored definition cannot be read
     */
    public Serial serial(String name) throws RegistryException {
        Serial s = serials.get(name);
        if (s != null) {
            return s;
        }
        String text = store.definition(name);
        if (text == null) {
            throw new UnknownTagException(name, "serial '" + name + "' is not defined; define "
                    + "it first (idmint serial define, POST /api/v1/serials, Serials.define)");
        }
        SerialDefinition d = SerialDefinition.parse(name, text);
        return serials.computeIfAbsent(name, n -> make(d));
    }

    /** Every serial the store defines, sorted by name. */
    public List<SerialDefinition> definitions() throws RegistryException {
        List<SerialDefinition> out = new ArrayList<>();
        for (Map.Entry<String, String> e : store.definitions().entrySet()) {
            out.add(SerialDefinition.parse(e.getKey(), e.getValue()));
        }
        return out;
    }

    /** What this node did with each serial it used, sorted by name. */
    public List<SerialStats> stats() {
        List<SerialStats> out = new ArrayList<>();
        serials.values().forEach(s -> out.add(s.stats()));
        out.sort(java.util.Comparator.comparing(SerialStats::serial));
        return out;
    }

    /** Builds {@link Serials}. */
    public static final class Builder {

        private RangeStore store;
        private TimeSource time = TimeSource.system();
        private java.util.function.BiFunction<String, Integer,
                java.util.function.LongFunction<String>> codes;

        private Builder() {
        }

        /**
         * The public codes of counters, for templates with {@code {code:BITS}}: given a serial's
         * name and the bits, the encoder of its counters (idmint-codes: {@code
         * Codes.newBuilder().key(…).bits(bits).tweak(name)}). Default none: such a serial is
         * refused, saying so.
         */
        public Builder codes(java.util.function.BiFunction<String, Integer,
                java.util.function.LongFunction<String>> codes) {
            this.codes = Objects.requireNonNull(codes, "codes");
            return this;
        }

        /** The segment store definitions and counters live in; required, and yours to close. */
        public Builder store(RangeStore store) {
            this.store = Objects.requireNonNull(store, "store");
            return this;
        }

        /** The clock periods are read from; default the system's. */
        public Builder timeSource(TimeSource time) {
            this.time = Objects.requireNonNull(time, "time");
            return this;
        }

        /** @throws IllegalStateException without a store */
        public Serials build() {
            if (store == null) {
                throw new IllegalStateException("Serials needs a store: call store(...)");
            }
            return new Serials(this);
        }
    }
}

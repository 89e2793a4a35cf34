package io.idmint.entity;

import io.idmint.FencedUuidV7;
import io.idmint.IdGenerator;
import io.idmint.Layout;
import io.idmint.segment.SegmentGenerator;
import io.idmint.segment.SegmentSequence;
import io.idmint.spi.RangeStore;
import io.idmint.spi.RegistryException;
import io.idmint.spi.TagInfo;
import io.idmint.spi.UnknownTagException;
import io.idmint.spi.support.Names;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.LongFunction;

/**
 * Fills the {@link IdmintId} and {@link IdmintSegment} fields of entities before they are
 * inserted: only the fields still unset (null, {@code 0} for a {@code long}, empty for a {@code
 * String}), so an entity saved again keeps its values. Thread-safe; build one per application
 * and share it. What each class holds is read once and checked then: a field of a type that
 * cannot hold an ID, an annotation without the generator it needs, a missing tag that may not
 * be created, are refused with a message naming the field.
 *
 * <pre>{@code
 * EntityIds entities = EntityIds.newBuilder().ids(ids).segments(segments).store(store).build();
 * entities.check(Order.class);         // at start-up: fails early, naming the field
 * entities.fill(order);                // before one insert
 * entities.fillAll(orders);            // before a batch insert: one draw per field
 * }</pre>
 */
public final class EntityIds {

    /** Where a tag created on its first use starts. */
    static final long FIRST_VALUE = 1;
    /** The step stored with a tag created on its first use (ranges adapt from it). */
    static final long STEP = 1_000;

    private final IdGenerator ids;
    private final SegmentGenerator segments;
    private final RangeStore store;
    private final LongFunction<String> codes;
    private final ClassValue<List<Slot>> slots = new ClassValue<>() {
        @Override
        protected List<Slot> computeValue(Class<?> type) {
            return read(type);
        }
    };

    private EntityIds(Builder b) {
        this.ids = b.ids;
        this.segments = b.segments;
        this.store = b.store;
        this.codes = b.codes;
    }

    /** A builder with no generator yet: give the ones the application's entities use. */
    public static Builder newBuilder() {
        return new Builder();
    }

    /**
     * The annotated fields of {@code type} and its superclasses, in declaration order; empty
     * when it has none.
     *
     * @throws IllegalArgumentException naming the field, when one cannot be filled
     */
    public List<Slot> slots(Class<?> type) {
        return slots.get(type);
    }

    /**
     * Checks {@code type} as {@link #slots} does, and that each {@code @IdmintSegment} tag with
     * {@code autoCreate = false} exists in the store (when there is one to ask). For start-up.
     *
     * @throws IllegalArgumentException naming the field, when one cannot be filled
     * @throws RegistryException when the store cannot be asked
     */
    public void check(Class<?> type) throws RegistryException {
        List<String> existing = null;
        for (Slot slot : slots(type)) {
            if (slot.tag == null || slot.autoCreate || store == null) {
                continue;
            }
            if (existing == null) {
                existing = store.tags().stream().map(TagInfo::tag).toList();
            }
            if (!existing.contains(slot.tag)) {
                throw new IllegalArgumentException(slot + ": the segment store has no tag '"
                        + slot.tag + "' and autoCreate is false; create it (idmint segment "
                        + "create " + slot.tag + ") or allow autoCreate");
            }
        }
    }

    /**
     * Fills the unset annotated fields of {@code entity}.
     *
     * @return {@code entity}
     * @throws IllegalArgumentException naming the field, when one cannot be filled
     * @throws io.idmint.IdUnavailableException when a generator cannot issue; fields filled
     *     before the failure keep their values, which are never issued again
     */
    public <T> T fill(T entity) {
        for (Slot slot : slots(entity.getClass())) {
            if (slot.isUnset(slot.get(entity))) {
                slot.set(entity, slot.next());
            }
        }
        return entity;
    }

    /**
     * Fills the unset annotated fields of every entity, drawing each field's values in one call
     * (a batch insert costs one generator call per field, not per row).
     *
     * @throws IllegalArgumentException naming the field, when one cannot be filled
     * @throws io.idmint.IdUnavailableException as {@link #fill}
     */
    public void fillAll(Collection<?> entities) {
        Map<Class<?>, List<Object>> byType = new LinkedHashMap<>();
        for (Object entity : entities) {
            byType.computeIfAbsent(entity.getClass(), t -> new ArrayList<>()).add(entity);
        }
        for (Map.Entry<Class<?>, List<Object>> group : byType.entrySet()) {
            for (Slot slot : slots(group.getKey())) {
                List<Object> unset = new ArrayList<>(group.getValue().size());
                for (Object entity : group.getValue()) {
                    if (slot.isUnset(slot.get(entity))) {
                        unset.add(entity);
                    }
                }
                if (unset.isEmpty()) {
                    continue;
                }
                long[] values = new long[unset.size()];
                slot.draw(values);
                for (int i = 0; i < values.length; i++) {
                    slot.set(unset.get(i), slot.form.apply(values[i]));
                }
            }
        }
    }

    private List<Slot> read(Class<?> type) {
        List<Slot> found = new ArrayList<>();
        List<Class<?>> chain = new ArrayList<>();
        for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
            chain.add(0, c);
        }
        for (Class<?> c : chain) {
            for (Field field : c.getDeclaredFields()) {
                IdmintId id = field.getAnnotation(IdmintId.class);
                IdmintSegment segment = field.getAnnotation(IdmintSegment.class);
                if (id != null || segment != null) {
                    found.add(new Slot(field, id, segment));
                }
            }
        }
        return List.copyOf(found);
    }

    /** An annotated field: what it holds and where its values come from. */
    public final class Slot {

        private final Field field;
        private final String annotation;
        private final String tag;
        private final boolean autoCreate;
        private final SegmentSequence sequence;
        private final LongFunction<Object> form;

        Slot(Field field, IdmintId id, IdmintSegment segment) {
            this.field = field;
            this.annotation = segment == null ? "@IdmintId" + (id.code() ? "(code = true)" : "")
                    : "@IdmintSegment(\"" + segment.value() + "\")";
            if (id != null && segment != null) {
                throw refused("a field takes @IdmintId or @IdmintSegment, not both");
            }
            if (Modifier.isStatic(field.getModifiers())) {
                throw refused("the field is static; IDs belong to instance fields");
            }
            Class<?> type = field.getType();
            boolean code = id != null && id.code();
            if (code && type != String.class) {
                throw refused("code = true makes a public code, a String; the field is a "
                        + type.getName());
            }
            boolean uuid = type == UUID.class && segment == null;
            if (!code && !uuid && type != long.class && type != Long.class
                    && type != String.class) {
                throw refused("the field must be a long, Long" + (segment == null
                        ? ", String or UUID" : " or String") + ", not a " + type.getName());
            }
            if (segment != null) {
                if (segments == null) {
                    throw refused("no segment generator: give one to EntityIds (with the "
                            + "Spring Boot starter: an application DataSource and idmint-jdbc, "
                            + "or idmint.segment.store)");
                }
                if (!Names.isValidTag(segment.value())) {
                    throw refused("'" + segment.value() + "' is no segment tag: "
                            + Names.TAG_RULE);
                }
                this.tag = segment.value();
                this.autoCreate = segment.autoCreate();
                this.sequence = segments.sequence(tag);
            } else {
                if (ids == null) {
                    throw refused("no ID generator: give one to EntityIds (with the Spring Boot "
                            + "starter, the application's IdGenerator bean)");
                }
                if (code && codes == null) {
                    throw refused("no code key: set idmint.codes.key (or idmint.codes.key-file) "
                            + "with the Spring Boot starter, or give EntityIds the codes");
                }
                this.tag = null;
                this.autoCreate = false;
                this.sequence = null;
            }
            if (code) {
                this.form = codes::apply;
            } else if (uuid) {
                Layout layout = ids.layout();
                try {
                    FencedUuidV7.requireFits(layout);
                } catch (IllegalArgumentException e) {
                    throw refused("a UUID field holds the ID's fenced UUIDv7, and "
                            + e.getMessage());
                }
                this.form = value -> FencedUuidV7.of(value, layout);
            } else if (type == String.class) {
                this.form = Long::toString;
            } else {
                this.form = Long::valueOf;
            }
            if (!field.trySetAccessible()) {
                throw refused("the field cannot be made accessible (is its package opened to "
                        + "io.idmint.entity?)");
            }
        }

        /** The field. */
        public Field field() {
            return field;
        }

        /**
         * Whether {@link EntityIds#fill} can set the field: false for a final one (a record's),
         * which only the framework's own accessor can set, by making a new object.
         */
        public boolean isSettable() {
            return !Modifier.isFinal(field.getModifiers());
        }

        /**
         * Whether {@code value}, read from the field, means no value yet: null, {@code 0L} or
         * an empty string.
         */
        public boolean isUnset(Object value) {
            return value == null || Long.valueOf(0).equals(value) || "".equals(value);
        }

        /** A new value, in the field's form (a {@code Long}, a {@code String} or a UUID). */
        public Object next() {
            if (sequence == null) {
                return form.apply(ids.nextId());
            }
            try {
                return form.apply(sequence.next());
            } catch (UnknownTagException e) {
                createOrThrow(e);
                return form.apply(sequence.next());
            }
        }

        /** Fills {@code values} with new values, in one generator call. */
        void draw(long[] values) {
            if (sequence == null) {
                ids.nextIds(values, 0, values.length);
                return;
            }
            try {
                sequence.next(values, 0, values.length);
            } catch (UnknownTagException e) {
                createOrThrow(e);
                sequence.next(values, 0, values.length);
            }
        }

        /** Creates the tag; another node creating it at the same time is just as good. */
        private void createOrThrow(UnknownTagException e) {
            if (!autoCreate || store == null) {
                throw e;
            }
            try {
                store.create(tag, FIRST_VALUE, STEP);
            } catch (RegistryException created) {
                if (created.kind() != RegistryException.Kind.CONFLICT) {
                    throw new IllegalStateException(this + ": cannot create segment tag '" + tag
                            + "': " + created.getMessage(), created);
                }
            }
        }

        Object get(Object entity) {
            try {
                return field.get(entity);
            } catch (IllegalAccessException e) {
                throw new IllegalStateException(this + ": " + e.getMessage(), e);
            }
        }

        void set(Object entity, Object value) {
            try {
                field.set(entity, value);
            } catch (IllegalAccessException e) {
                throw new IllegalArgumentException(this + ": cannot set the field ("
                        + e.getMessage() + "); a record's or another final field can only be "
                        + "set by the framework's own accessor", e);
            }
        }

        private IllegalArgumentException refused(String why) {
            return new IllegalArgumentException(this + ": " + why);
        }

        /** {@code @IdmintId on com.example.Order.number}. */
        @Override
        public String toString() {
            return annotation + " on " + field.getDeclaringClass().getName() + "."
                    + field.getName();
        }
    }

    /** What {@link EntityIds} draws from; give what the application's entities use. */
    public static final class Builder {

        private IdGenerator ids;
        private SegmentGenerator segments;
        private RangeStore store;
        private LongFunction<String> codes;

        private Builder() {
        }

        /** The generator behind {@link IdmintId}. */
        public Builder ids(IdGenerator ids) {
            this.ids = ids;
            return this;
        }

        /** The generator behind {@link IdmintSegment}. */
        public Builder segments(SegmentGenerator segments) {
            this.segments = segments;
            return this;
        }

        /** The store that creates a tag on its first use ({@link IdmintSegment#autoCreate()}). */
        public Builder store(RangeStore store) {
            this.store = store;
            return this;
        }

        /**
         * An ID's public code, for {@code @IdmintId(code = true)}: e.g. {@code codec::encode} of
         * an {@code io.idmint.codes.CodeCodec}.
         */
        public Builder codes(LongFunction<String> codes) {
            this.codes = codes;
            return this;
        }

        /** The filler. */
        public EntityIds build() {
            return new EntityIds(this);
        }
    }
}

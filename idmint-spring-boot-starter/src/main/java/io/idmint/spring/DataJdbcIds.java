package io.idmint.spring;

import io.idmint.entity.EntityIds;
import io.idmint.spi.RegistryException;
import java.util.List;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.data.mapping.PersistentPropertyAccessor;
import org.springframework.data.relational.core.mapping.RelationalMappingContext;
import org.springframework.data.relational.core.mapping.RelationalPersistentEntity;
import org.springframework.data.relational.core.mapping.RelationalPersistentProperty;
import org.springframework.data.relational.core.mapping.event.BeforeConvertCallback;

/**
 * Fills an aggregate root's idmint-entity fields ({@code @IdmintId}, {@code @IdmintSegment})
 * before Spring Data JDBC converts it for its first insert: Spring Data JDBC has decided already
 * whether the aggregate is new (its {@code @Id} was unset), so a key filled here is inserted,
 * not updated. A mutable field is set in place; an aggregate with a final one (a record, a class
 * with {@code withId} methods) goes through Spring Data's property accessor, which makes the new
 * object. At start-up every entity the mapping context knows is checked
 * ({@link EntityIds#check}), so a field that cannot be filled fails the start, naming it.
 */
public final class DataJdbcIds
        implements BeforeConvertCallback<Object>, SmartInitializingSingleton {

    private final EntityIds entities;
    private final ObjectProvider<RelationalMappingContext> contexts;
    /** Whether a class's fields can all be set in place, the fast way. */
    private final ClassValue<Boolean> settable = new ClassValue<>() {
        @Override
        protected Boolean computeValue(Class<?> type) {
            return entities.slots(type).stream().allMatch(EntityIds.Slot::isSettable);
        }
    };

    /**
     * The callback; the starter makes it. Without Spring Boot, declare it as a bean of a Spring
     * Data JDBC configuration.
     *
     * @param contexts the application's mapping context, looked up at first use
     */
    public DataJdbcIds(EntityIds entities, ObjectProvider<RelationalMappingContext> contexts) {
        this.entities = entities;
        this.contexts = contexts;
    }

    @Override
    public Object onBeforeConvert(Object aggregate) {
        List<EntityIds.Slot> slots = entities.slots(aggregate.getClass());
        if (slots.isEmpty()) {
            return aggregate;
        }
        if (settable.get(aggregate.getClass())) {
            return entities.fill(aggregate);
        }
        RelationalPersistentEntity<?> entity = contexts.getObject()
                .getRequiredPersistentEntity(aggregate.getClass());
        PersistentPropertyAccessor<Object> accessor = entity.getPropertyAccessor(aggregate);
        for (EntityIds.Slot slot : slots) {
            RelationalPersistentProperty property = entity.getPersistentProperty(
                    slot.field().getName());
            if (property == null) {
                throw new IllegalStateException(slot + ": Spring Data JDBC does not map the "
                        + "field (is it @Transient?)");
            }
            if (slot.isUnset(accessor.getProperty(property))) {
                accessor.setProperty(property, slot.next());
            }
        }
        return accessor.getBean();
    }

    @Override
    public void afterSingletonsInstantiated() {
        RelationalMappingContext context = contexts.getIfUnique();
        if (context == null) {
            return;
        }
        for (RelationalPersistentEntity<?> entity : context.getPersistentEntities()) {
            try {
                entities.check(entity.getType());
            } catch (RegistryException e) {
                throw new IllegalStateException("idmint: cannot check " + entity.getType()
                        .getName() + "'s segment tags: " + e.getMessage(), e);
            }
        }
    }
}

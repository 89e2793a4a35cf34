package io.idmint.hibernate;

import io.idmint.IdGenerator;
import java.lang.reflect.Member;
import java.util.EnumSet;
import org.hibernate.engine.spi.SharedSessionContractImplementor;
import org.hibernate.generator.BeforeExecutionGenerator;
import org.hibernate.generator.EventType;
import org.hibernate.id.factory.spi.CustomIdGeneratorCreationContext;

/** Makes {@link IdmintId} values: one {@code nextId()} per entity, in memory. */
public final class IdmintIdGenerator implements BeforeExecutionGenerator {

    private static final long serialVersionUID = 1L;

    private final transient IdGenerator ids;

    public IdmintIdGenerator(IdmintId annotation, Member member,
            CustomIdGeneratorCreationContext context) {
        IdGenerator configured = IdmintHibernate.setting(context, IdmintHibernate.ID_GENERATOR,
                IdGenerator.class);
        this.ids = configured != null ? configured : IdmintHibernate.standalone();
    }

    @Override
    public Object generate(SharedSessionContractImplementor session, Object owner,
            Object currentValue, EventType eventType) {
        return ids.nextId();
    }

    @Override
    public EnumSet<EventType> getEventTypes() {
        return EnumSet.of(EventType.INSERT);
    }
}

package io.idmint.hibernate;

import io.idmint.IdGenerator;
import java.lang.reflect.Member;
import java.util.EnumSet;
import java.util.function.LongFunction;
import org.hibernate.engine.spi.SharedSessionContractImplementor;
import org.hibernate.generator.AnnotationBasedGenerator;
import org.hibernate.generator.BeforeExecutionGenerator;
import org.hibernate.generator.EventType;
import org.hibernate.generator.GeneratorCreationContext;

/**
 * Makes {@link IdmintId} values: one {@code nextId()} per entity, in memory, at insert only (an
 * update never rewrites it), stored as the attribute's type holds it ({@link Attribute}).
 */
public final class IdmintIdGenerator
        implements BeforeExecutionGenerator, AnnotationBasedGenerator<IdmintId> {

    private static final long serialVersionUID = 1L;

    private transient IdGenerator ids;
    private transient LongFunction<Object> form;

    /** Hibernate (6.6 and 7) calls {@link #initialize} next. */
    public IdmintIdGenerator() {
    }

    @Override
    public void initialize(IdmintId annotation, Member member,
            GeneratorCreationContext context) {
        IdGenerator configured = IdmintHibernate.setting(context, IdmintHibernate.ID_GENERATOR,
                IdGenerator.class);
        // The attribute's type is checked first: a bad one fails before a standalone generator
        // would claim a worker.
        java.util.function.Supplier<IdGenerator> source = () -> configured != null ? configured
                : IdmintHibernate.standalone();
        this.form = Attribute.form("@IdmintId", member, annotation.code()
                ? () -> IdmintHibernate.codes(context,
                        Attribute.where("@IdmintId(code = true)", member))
                : null, () -> source.get().layout());
        this.ids = source.get();
    }

    @Override
    public Object generate(SharedSessionContractImplementor session, Object owner,
            Object currentValue, EventType eventType) {
        return form.apply(ids.nextId());
    }

    @Override
    public EnumSet<EventType> getEventTypes() {
        return EnumSet.of(EventType.INSERT);
    }
}

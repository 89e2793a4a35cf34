package io.idmint.hibernate;

import io.idmint.segment.SegmentGenerator;
import io.idmint.segment.SegmentSequence;
import io.idmint.spi.RangeStore;
import io.idmint.spi.RegistryException;
import io.idmint.spi.UnknownTagException;
import java.lang.reflect.Member;
import java.util.EnumSet;
import java.util.function.LongFunction;
import org.hibernate.engine.spi.SharedSessionContractImplementor;
import org.hibernate.generator.AnnotationBasedGenerator;
import org.hibernate.generator.BeforeExecutionGenerator;
import org.hibernate.generator.EventType;
import org.hibernate.generator.GeneratorCreationContext;

/**
 * Makes {@link IdmintSegment} values from the tag's sequence, in memory, at insert only (an
 * update never rewrites it), stored as the attribute's type holds it ({@link Attribute});
 * creates the tag on its first use unless {@link IdmintSegment#autoCreate()} is off.
 */
public final class IdmintSegmentGenerator
        implements BeforeExecutionGenerator, AnnotationBasedGenerator<IdmintSegment> {

    private static final long serialVersionUID = 1L;
    /** Where an auto-created tag starts. */
    private static final long FIRST_ID = 1;
    /** The step an auto-created tag stores (ranges adapt from it). */
    private static final long STEP = 1_000;

    private String tag;
    private boolean autoCreate;
    private transient SegmentSequence sequence;
    private transient RangeStore store;
    private String missing;
    private transient LongFunction<Object> form;

    /** Hibernate (6.6 and 7) calls {@link #initialize} next. */
    public IdmintSegmentGenerator() {
    }

    @Override
    public void initialize(IdmintSegment annotation, Member member,
            GeneratorCreationContext context) {
        SegmentGenerator segments = IdmintHibernate.setting(context,
                IdmintHibernate.SEGMENT_GENERATOR, SegmentGenerator.class);
        this.form = Attribute.form("@IdmintSegment", member, null, null);
        this.tag = annotation.value();
        this.autoCreate = annotation.autoCreate();
        this.sequence = segments != null ? segments.sequence(tag) : null;
        // Without one, the first insert fails (not the start: Hibernate would swallow the
        // message while it tries other ways to make the generator).
        this.missing = segments != null ? null : "@IdmintSegment(\"" + tag + "\") on "
                + member.getDeclaringClass().getName() + "." + member.getName()
                + " needs a segment generator: with the Spring Boot starter, an application "
                + "DataSource and idmint-jdbc, or idmint.segment.store; without Spring, the "
                + "Hibernate property " + IdmintHibernate.SEGMENT_GENERATOR;
        this.store = IdmintHibernate.setting(context, IdmintHibernate.RANGE_STORE,
                RangeStore.class);
    }

    @Override
    public Object generate(SharedSessionContractImplementor session, Object owner,
            Object currentValue, EventType eventType) {
        if (missing != null) {
            throw new IllegalStateException(missing);
        }
        long value;
        try {
            value = sequence.next();
        } catch (UnknownTagException e) {
            if (!autoCreate || store == null) {
                throw e;
            }
            create();
            value = sequence.next();
        }
        return form.apply(value);
    }

    /** Creates the tag; another node creating it at the same time is just as good. */
    private void create() {
        try {
            store.create(tag, FIRST_ID, STEP);
        } catch (RegistryException e) {
            if (e.kind() != RegistryException.Kind.CONFLICT) {
                throw new IllegalStateException("cannot create segment tag '" + tag + "': "
                        + e.getMessage(), e);
            }
        }
    }

    @Override
    public EnumSet<EventType> getEventTypes() {
        return EnumSet.of(EventType.INSERT);
    }
}

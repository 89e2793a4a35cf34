package io.idmint.hibernate;

import io.idmint.segment.Serials;
import io.idmint.spi.RangeStore;
import io.idmint.spi.RegistryException;
import java.lang.reflect.Field;
import java.lang.reflect.Member;
import java.lang.reflect.Method;
import java.util.EnumSet;
import org.hibernate.engine.spi.SharedSessionContractImplementor;
import org.hibernate.generator.AnnotationBasedGenerator;
import org.hibernate.generator.BeforeExecutionGenerator;
import org.hibernate.generator.EventType;
import org.hibernate.generator.GeneratorCreationContext;

/** Makes {@link IdmintSerial} values: the serial's next value, at insert only. */
public final class IdmintSerialGenerator
        implements BeforeExecutionGenerator, AnnotationBasedGenerator<IdmintSerial> {

    private static final long serialVersionUID = 1L;

    private String name;
    private String missing;
    private transient Serials serials;

    /** Hibernate (6.6 and 7) calls {@link #initialize} next. */
    public IdmintSerialGenerator() {
    }

    @Override
    public void initialize(IdmintSerial annotation, Member member,
            GeneratorCreationContext context) {
        String where = Attribute.where("@IdmintSerial(\"" + annotation.value() + "\")", member);
        Class<?> type = member instanceof Field f ? f.getType()
                : ((Method) member).getReturnType();
        if (type != String.class) {
            throw new IllegalArgumentException(where + ": a serial's value is text; the "
                    + "attribute must be a String, not a " + type.getName());
        }
        this.name = annotation.value();
        Serials configured = IdmintHibernate.setting(context, IdmintHibernate.SERIALS,
                Serials.class);
        RangeStore store = IdmintHibernate.setting(context, IdmintHibernate.RANGE_STORE,
                RangeStore.class);
        this.serials = configured != null ? configured
                : store != null ? Serials.newBuilder().store(store).build() : null;
        // Without one, the first insert fails (not the start: Hibernate would swallow the
        // message while it tries other ways to make the generator).
        this.missing = serials != null ? null : where + " needs a segment store: with the "
                + "Spring Boot starter, an application DataSource and idmint-jdbc, or "
                + "idmint.segment.store; without Spring, the Hibernate property "
                + IdmintHibernate.SERIALS + " or " + IdmintHibernate.RANGE_STORE;
    }

    @Override
    public Object generate(SharedSessionContractImplementor session, Object owner,
            Object currentValue, EventType eventType) {
        if (missing != null) {
            throw new IllegalStateException(missing);
        }
        try {
            return serials.serial(name).next();
        } catch (RegistryException e) {
            throw new IllegalStateException("serial '" + name + "': the segment store did not "
                    + "answer: " + e.getMessage(), e);
        }
    }

    @Override
    public EnumSet<EventType> getEventTypes() {
        return EnumSet.of(EventType.INSERT);
    }
}
